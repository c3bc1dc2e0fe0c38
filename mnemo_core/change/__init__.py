"""Change context: a diff -> changed symbols -> blast radius -> impacted tests -> risk."""
