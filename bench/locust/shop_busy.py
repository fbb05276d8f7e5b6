# bench/lua/shop_busy.lua as a Locust 2.x locustfile, for bench/compare_locust.sh:
# the same requests, weights, names and check, no think time.
from locust import HttpUser, constant, task


class Shopper(HttpUser):
    wait_time = constant(0)

    def on_start(self):
        r = self.client.post("/api/login", json={"username": "load-user", "password": "secret"},
                             name="POST /api/login")
        self.token = r.json()["token"]

    @task(4)
    def browse(self):
        self.client.get("/api/products", name="GET /api/products")

    @task(1)
    def order(self):
        with self.client.post("/api/orders", data='{"sku":"A-100","quantity":1}',
                              headers={"Authorization": f"Bearer {self.token}"}, name="POST /api/orders",
                              catch_response=True) as r:
            if r.status_code != 201:
                r.failure(f"unexpected status {r.status_code}")
