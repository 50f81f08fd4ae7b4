"""One episode at run time: session, state, entities, clock and ids, audit."""
