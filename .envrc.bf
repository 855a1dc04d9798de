export TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/oodle_test_bf TEST_QUEUE_PREFIX=oodle-test-bf DATABASE_URL=postgresql://postgres@127.0.0.1:5432/oodle_bf QUEUE_PREFIX=oodle-bf PORT=4104
