"""Lesson 03's exercises answered: paste each assignment over the ``..._N = ...`` stub of its cell."""

# Exercise 1: a value is all the text after '=' up to ';' or the end of the line, so "Billing and priority=P0" is
# module's value: the desk notes "module=Billing and priority=P0", but the message declares only module, never
# priority, and mem lists one fact, module = "Billing and priority=P0".
message_1 = "module=Billing and priority=P0"
answer_1 = 1

# Exercise 2: the router compares whole words with its list of operations words: "catalog" and "blog" hold the
# letters "log" but are not the word log, so the question goes to triage.
answer_2 = "triage"

# Exercise 3: `forget module` gave triage a new, empty session; after it only database=Oracle reached triage (a user
# message and an answer); `mem` reaches no desk and the question about logs went to operations.
answer_3 = 2
