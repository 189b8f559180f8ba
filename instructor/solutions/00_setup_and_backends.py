"""Lesson 00's exercises answered: paste each assignment over the ``answer_N = ...`` stub of its cell."""

# Exercise 1: one call and two retries of 20 s each (60 s), plus the SDK's waits of 0.5 s and 1 s between them.
answer_1 = 61.5

# Exercise 2: six roles follow OPENAI_MODEL, but COURSE_WRITER_MODEL gives the writer gpt-4o; the numbering row is the
# seed's fake model, which no setting switches: five rows say gpt-4o-mini.
answer_2 = 5

# Exercise 3: the writer proposed database=Oracle, but the user wrote a sentence, not database=Oracle: the host rejects
# the proposal (nothing_to_extract would mean the writer proposed nothing).
answer_3 = "rejected"
