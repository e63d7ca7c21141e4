"""``quizkit diff``: what changed between two exports, record by record.

``records`` says what a document holds as records of the analysis tables; ``collect`` (and
``tables`` for databases and datasets) puts both sides into a work database as digests;
``compare`` pairs and classifies them in SQL; ``detail`` reads the reported records again
for their fields and positions; ``result`` is what the API returns; ``text``, ``page`` and
``output`` write the reports.
"""
