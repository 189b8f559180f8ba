"""course_lib: the small, tested library behind the agent-memory and loop-engineering workbook.

Two halves that stand alone (the memory lessons 01-04, the loop lessons 05-06), the shared floors both stand on,
and the capstone that joins them. The modules are flat; this map lists them floor by floor from the ground up, and
every import runs downwards: a module imports only modules listed above it here, whether the import is at the top
of the module, inside a function or for types only (under ``TYPE_CHECKING``), so no import runs in a circle. A line
that names a half says where the module belongs; a line that names none is shared, and loads neither half when it
runs. Rows are made below and shown at the top: a module that measures something returns typed rows (or hands
them to the ground floor's ``rows_frame``), and only the display and the panels, on the top floor, import the
display. ``tests/test_structure.py`` checks all of this, and that the README's map says the same.

Ground floor -- imports no other course_lib module:
    assertions      (memory half) the key=value contract: ALLOWED_KEYS, parse_assertions
    conventions     the MAF conventions read in one place: attribution, stored history
    prompts         prompt formats the host writes and an offline model reads
    exercises       the checking cells' comparison
    frames          rows_frame: the one way typed rows become a table (pandas loads when one is made)
    loop            (loop half) LoopAgent, its options and context, the evaluators MAF .NET ships

Records and settings -- what the floors above record and read; nothing here builds a model or starts a server:
    memory          (memory half) the bounded store of cited facts: WorkingMemory, its tickets, forget
    forgetting      (memory half) what "a forgotten fact reaches a model" means; the filter holding later calls to it
    tracing         what each model call saw and returned, as typed rows
    environment     the course's files, and lesson 00's check of the installed packages against the lock
    live            the live endpoint settings and their errors, read and checked before any call, starting nothing
    local_model     COURSE_LLM=local: the embedded llama.cpp server on 127.0.0.1, its model checked

Models -- every chat client, offline or live, and the one factory that builds them:
    offline         OfflineChatClient, the base of every offline model
    live_client     LiveChatClient, MAF's OpenAI client bounded and checked (loads the openai SDK)
    memory_models   (memory half) scenario code: the offline writer, desk assistant and reader, summarizer
    loop_demos      (loop half) scenario code: the seed's numbering demo and trace, the offline worker and judge
    clients         make_chat_client(role), the one model factory, and the one place the local server starts
    serve_model     make serve-model: the local model served alone for a class, at an address, behind a key

Memory lessons -- lessons 02-04 and the qualification, in lesson order, each building its models with the factory:
    extraction      (memory half) the fact writer (MAF structured output) and host-side admission: MemoryExtraction
    providers       (memory half) manual injection, FactsContextProvider, the two desks and their console
    policies        (memory half) the memory policies, timelines, the Demo170 comparison
    qualify         (memory half) make qualify: a live writer scored against the contract
    recordings      (memory half) runs recorded on the local model (qualification, policy costs), saved and shown

Capstone -- lesson 07, the one module that joins the halves:
    answer_reader   (both halves) how the evaluator reads the values an answer states, in any shape, and its limits
    capstone        (both halves) FactsConsistencyEvaluator and the drift-prone reader, each run a typed row

Display and panels -- the top floor: they show the rows the floors below make, and nothing below imports them:
    presentation    the one display setup, the lessons' tables and plots of the rows below
    widgets         (memory half) the memory panel, the desks, the policy explorer
    loop_panels     (loop half) the loop stepper
    capstone_panel  (both halves) lesson 07's panel: the store, an answer, the evaluator's verdict and feedback
"""

__version__ = "0.1.0"
"""The package version (pyproject.toml reads it from here: one source)."""
