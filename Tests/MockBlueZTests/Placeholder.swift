// Placeholder until these tests land.
