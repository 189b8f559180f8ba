"""Lesson 00's exercises answered: paste each assignment over the ``answer_N = ...`` stub of its cell."""

# Exercise 1: one call and two retries of 20 s each (60 s), plus the SDK's waits of 0.5 s and 1 s between them.
answer_1 = 61.5

# Exercise 2: six roles follow OPENAI_MODEL, but COURSE_WRITER_MODEL gives the writer gpt-4o; the numbering row is the
# seed's fake model, which no setting switches: five rows say gpt-4o-mini.
answer_2 = 5

# Exercise 3: a value runs to the next ';' or line break, and a comma is neither, so "module=Billing, priority=P1"
# declares one fact, module='Billing, priority=P1'; the writer proposed module=Billing and priority=P1 instead, so the
# host rejects the whole proposal and stores nothing.
answer_3 = "rejected"
