"""Lesson 02's exercises answered: paste each assignment over the ``answer_N = ...`` stub of its cell."""

# Exercise 1: `Module` is not an allowed key, so the message declares only module=Billing, which the writer proposes.
answer_1 = "accepted"

# Exercise 2: the writer dropped a declaration, so the whole batch is rejected: even module=Reporting is not stored,
# and module keeps the value the store held, Payments.
answer_2 = "Payments"

# Exercise 3: each user turn calls the desk and the writer (2 + 2); `mem` and `forget` call no model.
answer_3 = 4
