"""Formats in and out: the seed paper's release format (`release`, a pure strict parser),
PatientAgentBench's LangChain conversation dumps (`langchain`), the project's JSONL (`jsonl`),
the bounds, safe JSON reading and one-line errors they share (`schema`), and the atomic
importer (`importer`) and exporter (`export`) that write and read the database."""
