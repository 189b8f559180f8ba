"""course_lib: the small, tested library behind the agent-memory and loop-engineering workbook.

Two halves that stand alone, the lessons' scenario code and panels beside them, and the infrastructure both
use; only the capstone joins the halves. The modules are flat; this map says where each belongs
(``tests/test_structure.py`` checks that every module is in exactly one group, that the README's map says
the same, and that each module imports only what its group allows):

Memory half -- lessons 01-04, in lesson order; a module loads only those above it, never the loop half:
    assertions      the key=value contract: ALLOWED_KEYS, parse_assertions
    memory          the bounded store of cited facts: WorkingMemory, its tickets, forget
    forgetting      what "a forgotten fact reaches a model" means; the filter that holds every later call to it
    extraction      the fact writer (MAF structured output) and host-side admission: MemoryExtraction
    providers       manual injection, FactsContextProvider, the two desks and their console
    policies        the memory policies, timelines, the Demo170 comparison
    qualify         make qualify: a live writer scored against the contract
    recordings      runs recorded on the local model (qualification, policy costs), saved and shown

Loop half -- lessons 05-06; loads nothing of the memory half:
    loop            LoopAgent, its options and context, the evaluators MAF .NET ships

Scenario code -- what the lessons run, kept apart from the library types it demonstrates:
    memory_models   (memory half) the offline writer, desk assistant and reader, summarizer
    loop_demos      (loop half) the seed's numbering demo and trace, the offline worker and judge
    capstone        (both halves) lesson 07: FactsConsistencyEvaluator and the drift-prone reader

Shared infrastructure -- used by both halves, loads neither:
    clients         make_chat_client(role), the one model factory, offline or live
    offline         OfflineChatClient, the base of every offline model
    live            the live endpoint settings, read and checked before any call
    live_client     LiveChatClient, MAF's OpenAI client bounded and checked (loads the openai SDK)
    local_model     COURSE_LLM=local: the embedded llama.cpp server on 127.0.0.1, its model checked
    conventions     the MAF conventions read in one place: attribution, stored history
    prompts         prompt formats the host writes and an offline model reads
    tracing         what each model call saw and returned
    presentation    the one display setup, the lessons' tables and plots
    exercises       the checking cells' comparison
    environment     lesson 00's check of the installed packages against the lock

Panels -- the lessons' ipywidgets panels, each with its half:
    widgets         (memory half) the memory panel, the desks, the policy explorer
    loop_panels     (loop half) the loop stepper
"""

__version__ = "0.1.0"
"""The package version (pyproject.toml reads it from here: one source)."""
