// Loaded before every test file (bunfig.toml). Keeps test runs quiet unless asked otherwise.
process.env.LOG_LEVEL ??= "error";
