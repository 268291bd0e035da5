"""Fault tests: outages of PostgreSQL and Redis, and a killed worker, simulated through a TCP
proxy on real server, worker and database processes (PostgreSQL + Redis only)."""
