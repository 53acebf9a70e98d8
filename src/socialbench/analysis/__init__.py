"""Statistics, tables and reports built from evaluation results."""
