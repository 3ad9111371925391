"""flowcontrol API group."""
