"""What every layer names: findings and severities, JSON Pointers, text safe to show, the rule
declarations (codes, names, docs) of reading and schema rules, and the rule catalog's text.

The ground floor: it imports no other quizkit package."""
