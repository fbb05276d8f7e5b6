-- Benchmark: a static script (fields only); the request is built once.
wrk.method = "GET"
wrk.headers["X-Bench"] = "static"
