"""The writer's check as a local web page (``authorguard serve``): FastAPI on 127.0.0.1, nothing sent anywhere."""
