# Test-only consent driver for the conformance suite's authorization-code-grant
# scenario (apiserver/scripts/oauth-conformance.sh): it signs in with a one-time
# link and approves on the real consent page, as a person would. Never shipped.
import re, subprocess, sys, urllib.request, urllib.parse, http.cookiejar, html
base, db, email, auth_url, tb = sys.argv[1:6]
jar = http.cookiejar.CookieJar()
class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k): return None
op = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
def get(url):
    try: r = op.open(url); return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e: return e.code, e.headers, e.read().decode()
def post(url, data):
    req = urllib.request.Request(url, data=urllib.parse.urlencode(data, doseq=True).encode(), headers={"Origin": base, "Content-Type": "application/x-www-form-urlencoded"})
    try: r = op.open(req); return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e: return e.code, e.headers, e.read().decode()
link = subprocess.check_output([tb, "users", "login-link", "--db", db, "--email", email], stderr=subprocess.DEVNULL).decode().split()[0]
link = base + link[link.index("/login"):]
st, h, body = get(link)
if not any(c.name.endswith("tb_session") for c in jar):
    m = re.search(r'<form[^>]*action="([^"]+)"[^>]*>(.*?)</form>', body, re.S)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', m.group(2)))
    st, h, body = post(urllib.parse.urljoin(link, html.unescape(m.group(1))), {k: html.unescape(v) for k, v in fields.items()})
st, h, body = get(auth_url)
assert st == 200, (st, body[:500])
start = body.index('<form method="post" action="/oauth/authorize">'); form = body[start:body.index("</form>", start)]
data = {}
for name, value in re.findall(r'<input type="(?:hidden|checkbox)" (?:id="[^"]*" )?name="([^"]+)" value="([^"]*)"', form):
    data.setdefault(name, []).append(html.unescape(value))
data["decision"] = ["allow"]
st, h, body = post(base + "/oauth/authorize", data)
assert st == 303, (st, body[:500])
print("consent redirect:", h["Location"].split("?")[0])
urllib.request.urlopen(h["Location"]).read()
