"""Lesson 00's exercises answered: paste each assignment over the ``answer_N = ...`` stub of its cell."""

# Exercise 1: one call and two retries of 20 s each, plus the SDK's waits of 0.5 s and 1 s between them: 61.5 s.
answer_1 = 61

# Exercise 2: the seed's numbering LLM of lesson 05; its numbered replies are the demo, so it is never live.
answer_2 = "numbering"

# Exercise 3: the host admits only what the user declared as key=value; "Our database is Oracle." declares nothing.
answer_3 = "rejected"
