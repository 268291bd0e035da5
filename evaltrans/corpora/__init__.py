"""Core data: test sets, segments, references, systems, candidates; import and export."""
