"""Lesson 05's exercises answered: paste each assignment over the ``answer_N = ...`` stub of its cell."""

# Exercise 1: three input messages, then a response and a feedback message per iteration: 3 + 2 * 3 at the 4th call.
answer_1 = 9

# Exercise 2: the evaluator stops after the first response, and only the responses come back: one message.
answer_2 = 1

# Exercise 3: the input uses [1] to [3]; the LLM answers [4], the evaluator asks again, the LLM answers [5]: stop.
answer_3 = 2
