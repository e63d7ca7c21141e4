"""What an export is: kinds and entities (one model), the bundled JSON Schemas, enums and profiles,
the service's names."""
