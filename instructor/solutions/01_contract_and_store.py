"""Lesson 01's exercises answered: paste each assignment over the ``answer_N = ...`` stub of its cell."""

# Exercise 1: `database = SQL Server 2022` is the one real database declaration (spaces around it trimmed); the later
# `Hello! database=Oracle` (its key is `Hello! database`) and `Database=MySQL` (keys are case-sensitive) declare
# nothing, so neither replaces it; `version=` declares nothing; a value may itself contain "=".
answer_1 = {"database": "SQL Server 2022", "log": "a=b"}

# Exercise 2: six keys for five places; the oldest turn (1) holds product and customer, and among equals the
# smallest key in ordinal order goes first.
answer_2 = "customer"

# Exercise 3: the store alone checks the citation, not the meaning: "SQL Server" is inside "database=SQL Server 2022",
# so a cut-off value gets in; lesson 02's host check catches it.
answer_3 = True
