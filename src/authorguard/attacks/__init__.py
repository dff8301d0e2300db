"""Authorship attackers: who wrote each released document?"""
