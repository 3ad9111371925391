"""admissionregistration API group."""
