"""What the tests share that is not a test: the trust harness, its stress run, the loopback wire server, its survey.

``make test`` imports these as ``support.<name>`` (pytest puts ``tests/`` on the path); the two scripts
(``stress_trust.py``, ``wire_survey.py``) run as files and put this folder on the path themselves.
"""
