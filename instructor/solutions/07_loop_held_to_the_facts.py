"""Lesson 07's exercises answered: paste each assignment over the ``answer_N = ...`` stub of its cell."""

# Exercise 1: under 'latest' the reader keeps the correction, so the first answer already agrees with the store.
answer_1 = "right first time"

# Exercise 2: the facts run's store (5 facts) holds module=Billing and database=SQL Server 2022 but has evicted the
# constraint: only database=PostgreSQL contradicts it.
answer_2 = 1

# Exercise 3: six places keep turns 4 to 9 (version and the five newer keys); the constraint of turn 2 is evicted,
# so nothing holds the plan to it.
answer_3 = False
