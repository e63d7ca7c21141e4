"""What people read: self-contained HTML pages, charts, and tables of result sections (text, CSV,
JSON, Markdown)."""
