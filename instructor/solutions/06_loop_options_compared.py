"""Lesson 06's exercises answered: paste each assignment over the ``answer_N = ...`` stub of its cell."""

# Exercise 1: with a fresh context every re-run (every call after the first) sees the three initial messages plus
# one `## Feedback` message that lists all the feedback so far: 4 messages.
answer_1 = 4

# Exercise 2: one session at the start and one for the second (and last) iteration.
answer_2 = 2

# Exercise 3: B is asked only when A says stop, and A stops once, at iteration 3, where B agrees.
answer_3 = 1
