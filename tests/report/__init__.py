"""The class report and its similarity section (kit/report)."""
