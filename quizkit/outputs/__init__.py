"""The one output layer (atomic files, links, devices), signals, the progress display, and numbers
for people."""
