"""tilec's command-line tools (`tilec-opt`)."""
