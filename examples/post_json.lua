-- POST a JSON body with every request. The request is built once before the
-- run, so this costs nothing per request (a "static" script).
--
--   pacer -s examples/post_json.lua http://127.0.0.1:8080/echo
wrk.method = "POST"
wrk.body = '{"name":"pacer","items":[1,2,3]}'
wrk.headers["Content-Type"] = "application/json"
