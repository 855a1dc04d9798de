// The API container's health check: healthy when /ready answers 200 (Postgres and Redis reachable).
const port = process.env.PORT || "4000";
fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(4000) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
