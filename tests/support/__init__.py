"""What tests of every folder share: the installed console script and child processes
(`processes`), short temporary folders (`folders`), an asyncio loop on a thread of its own
(`loop_thread`) and the operator who presses retry (`retry`)."""
