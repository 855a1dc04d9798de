-- Each schedule carries the quiet period and maximum wait it was computed with (ms), so ingest
-- can slide dueAt in one statement. The table is new in the same release, so it holds no rows.
ALTER TABLE "GroupSchedule" ADD COLUMN     "maxWaitMs" INTEGER NOT NULL,
ADD COLUMN     "quietPeriodMs" INTEGER NOT NULL;
