-- How long one span's touch of a 20,000-trace session's GroupSchedule row takes (spans/ingest-write.ts
-- GROUP_SCHEDULE_SQL's traceIds): the old rewrite of the whole array, then the kept array, then a new
-- trace. Run: psql -h 127.0.0.1 -U postgres -d oodle_test -f scripts/bench/group-trace-ids.sql | grep 'Execution Time'
\timing on
DROP TABLE IF EXISTS tmp_gs;
CREATE TABLE tmp_gs (id int PRIMARY KEY, "traceIds" text[], n int);
INSERT INTO tmp_gs SELECT 1, ARRAY(SELECT 't' || lpad(i::text, 8, '0') FROM generate_series(1, 20000) i ORDER BY 1), 0;
-- warm
UPDATE tmp_gs SET n = n + 1 WHERE id = 1;
-- old: a touch from a trace already in the session
EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY ON) UPDATE tmp_gs gs SET n = n + 1, "traceIds" = ARRAY(SELECT DISTINCT x FROM unnest(gs."traceIds" || ARRAY['t00005000']) AS x ORDER BY x) WHERE id = 1;
EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY ON) UPDATE tmp_gs gs SET n = n + 1, "traceIds" = ARRAY(SELECT DISTINCT x FROM unnest(gs."traceIds" || ARRAY['t00005000']) AS x ORDER BY x) WHERE id = 1;
-- new: unchanged when it holds them
EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY ON) UPDATE tmp_gs gs SET n = n + 1, "traceIds" = CASE WHEN gs."traceIds" @> ARRAY['t00005000'] THEN gs."traceIds" ELSE ARRAY(SELECT DISTINCT x FROM unnest(gs."traceIds" || ARRAY['t00005000']) AS x ORDER BY x) END WHERE id = 1;
EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY ON) UPDATE tmp_gs gs SET n = n + 1, "traceIds" = CASE WHEN gs."traceIds" @> ARRAY['t00005000'] THEN gs."traceIds" ELSE ARRAY(SELECT DISTINCT x FROM unnest(gs."traceIds" || ARRAY['t00005000']) AS x ORDER BY x) END WHERE id = 1;
-- new trace: must rewrite
EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY ON) UPDATE tmp_gs gs SET n = n + 1, "traceIds" = CASE WHEN gs."traceIds" @> ARRAY['u1'] THEN gs."traceIds" ELSE ARRAY(SELECT DISTINCT x FROM unnest(gs."traceIds" || ARRAY['u1']) AS x ORDER BY x) END WHERE id = 1;
DROP TABLE tmp_gs;
