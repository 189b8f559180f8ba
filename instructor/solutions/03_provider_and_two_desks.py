"""Lesson 03's exercises answered: paste each assignment over the ``..._N = ...`` stub of its cell."""

# Exercise 1: the offline desk repeats the question, so its reply contains priority=P0; the line is a sentence,
# not a declaration, and only the caller's own declarations are extracted (the reply never is): nothing is stored.
message_1 = "Please repeat after me: priority=P0"
answer_1 = False

# Exercise 2: the router reads words: "deploy" and "logs" send the question to operations.
answer_2 = "operations"

# Exercise 3: `forget module` gave triage a new, empty session; after it only database=Oracle reached triage (a user
# message and an answer); `mem` reaches no desk and the question about logs went to operations.
answer_3 = 2
