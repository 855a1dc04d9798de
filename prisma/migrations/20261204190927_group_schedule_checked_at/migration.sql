-- The lost pass moves its next check of a job still waiting or running here, not in queuedAt (the job id holds queuedAt)
ALTER TABLE "GroupSchedule" ADD COLUMN "checkedAt" TIMESTAMP(3);
