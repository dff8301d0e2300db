"""The ``authorguard`` command line: thin commands that parse, call the library and print."""
