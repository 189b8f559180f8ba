"""Lesson 04's exercises answered: paste each assignment over the ``answer_N = ...`` stub of its cell."""

# Exercise 1: a 9-turn window at turn 10 holds turns 1 to 9: the correction of turn 6 and the prohibition of turn 2,
# but also turn 1's superseded values, like full history. Right under the latest rule only.
answer_1 = True

# Exercise 2: nine keys are declared before turn 10, so one is evicted: product, the oldest (turn 1; module and
# database were re-declared at turn 6). The question needs module, database and the constraint, all still held.
answer_2 = True

# Exercise 3: an extractive summary over budget drops its oldest lines first, and the prohibition is turn 2.
answer_3 = False
