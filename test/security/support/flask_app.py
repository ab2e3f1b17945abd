"""A small Flask application that routes by path prefix, for the security suite.

It serves an admin area under /admin/ and a public one under /public/, and remembers what it
served (area, path, the identity and forwarding headers it got) under the request's X-Probe
header, so a test can ask afterwards, straight and not through a proxy, whether it ever served
the admin area. Werkzeug decodes the path before routing (/%61dmin/ is /admin/), as a real
Flask deployment does.
"""
import json
import sys
import threading

from flask import Flask, jsonify, request

app = Flask(__name__)
served = []
lock = threading.Lock()
HEADERS = [
    "remote-user", "remote-name", "remote-email", "remote-groups", "authorization", "cookie",
    "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-uri",
    "x-original-url", "x-real-ip", "host",
]
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]


def serve(area):
    record = {
        "app": "flask",
        "area": area,
        "path": request.path,
        "raw": request.environ.get("RAW_URI") or request.environ.get("REQUEST_URI") or request.full_path,
        "probe": request.headers.get("x-probe"),
        "headers": {name: request.headers.get(name) for name in HEADERS},
    }
    with lock:
        served.append(record)
    return jsonify(record)


@app.route("/admin/", defaults={"rest": ""}, methods=METHODS)
@app.route("/admin/<path:rest>", methods=METHODS)
def admin(rest):
    return serve("admin")


@app.route("/public/", defaults={"rest": ""}, methods=METHODS)
@app.route("/public/<path:rest>", methods=METHODS)
def public(rest):
    return serve("public")


@app.route("/__served")
def log():
    probe = request.args.get("probe")
    with lock:
        return jsonify([r for r in served if probe is None or r["probe"] == probe])


if __name__ == "__main__":
    port = int(sys.argv[1])
    print(json.dumps({"listening": port}), flush=True)
    app.run(host="127.0.0.1", port=port, threaded=True)
