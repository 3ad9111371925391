"""Validation of batch/v1 (pkg/apis/batch/validation): jobs.py, cronjobs.py, and the CronJob
schedule parser in cron.py; apis/scheme.py merges the modules' tables."""
