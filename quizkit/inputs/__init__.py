"""Reading inputs: the walk of paths, sources (files, stdin, gzip, s3://), resource limits, the
intake of bytes into parsed documents, positions of values, and the small files that configure a
run."""
