"""The rules engines: pure game modules over frozen states."""
