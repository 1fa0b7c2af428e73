"""The warm Python template server (`server.py`), run by the interpreter a hook names.

This package holds only the server file so that the directory put first on the template's
`sys.path` shadows nothing; the engine side is `hookwright.transports.warm`.
"""
