"""Secrets never leave the tool; ids, hashes and ordinary text are left alone."""

from __future__ import annotations

import base64
import html
import json
import random
import string
import urllib.parse

import pytest

from purlin_resume.core import redact, secret_rules
from tests.conftest import FIXTURES

_rng = random.Random(7)


def _chars(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _hidden(texts, secret: str, kind: str) -> None:
    """Each of ``texts`` redacted: ``secret`` is gone, found once as a secret of ``kind``."""
    for text in texts:
        done = redact.redact(text)
        assert secret not in done.text
        assert done.counts == {kind: 1}


# Built at run time so that no provider's secret scanner ever sees a token-shaped string in the repo.
PLANTED = {
    "aws-access-key": "AKIA" + _chars(16, string.ascii_uppercase + "234567"),
    "github-token": "ghp_" + _chars(36),
    "gitlab-token": "glpat-" + _chars(20),
    "slack-token": "xoxb-" + "1234567890-" + _chars(24),
    "slack-webhook": "https://hooks.slack.com/services/"
    + _chars(9)
    + "/"
    + _chars(11)
    + "/"
    + _chars(24),
    "stripe-key": "sk_" + "live_" + _chars(24),
    "anthropic-key": "sk-ant-"
    + "api03-"
    + _chars(93, string.ascii_letters + string.digits + "_-")
    + "AA",
    "openai-key": "sk-proj-" + _chars(20) + "T3BlbkFJ" + _chars(20),
    "google-api-key": "AIza" + _chars(35),
    "jwt": "eyJ" + _chars(20) + ".eyJ" + _chars(30) + "." + _chars(43),
    "private-key": "-----BEGIN RSA PRIVATE KEY-----\n"
    + _chars(64)
    + "\n"
    + _chars(64)
    + "\n-----END RSA PRIVATE KEY-----",
    "google-oauth-token": "ya29." + _chars(150, string.ascii_letters + string.digits + "_-"),
    "mailchimp-key": _chars(32, "0123456789abcdef") + "-us21",
    "discord-bot-token": "MTk4NjIyNDgzNDcxOTI1MjQ4."
    + _chars(6, string.ascii_letters + string.digits + "_-")
    + "."
    + _chars(38, string.ascii_letters + string.digits + "_-"),
}
CONTEXTS = [
    "{value}",
    "export THE_VALUE='{value}'",
    '{{"config": {{"value": "{value}"}}}}',
    "value: {value}\n",
    "see {value}, then go on",
]


@pytest.mark.parametrize("kind", sorted(PLANTED))
@pytest.mark.parametrize("context", CONTEXTS)
def test_planted_provider_secrets_are_redacted(kind, context):
    secret = PLANTED[kind]
    done = redact.redact(context.format(value=secret))
    assert secret not in done.text
    assert done.counts == {kind: 1}
    assert f"[REDACTED:{kind}:" in done.text


# a token right after an escaped character: in a form or a URL (``%22ghp_…``, ``%3Dxoxb-…``), in
# JSON that escapes every character past ASCII (``\uff1aghp_…``, a full-width colon before it)
ESCAPED = {
    "form": lambda s: f"curl -d 'payload={urllib.parse.quote(json.dumps({'v': s}), safe='')}'",
    "url": lambda s: "GET /cb?next=" + urllib.parse.quote(f"https://x.example/?token={s}", safe=""),
    "json": lambda s: json.dumps({"note": f"clé：{s}"}),
}


@pytest.mark.parametrize(
    "kind", sorted(k for k, v in PLANTED.items() if urllib.parse.quote(v, safe="") == v)
)
@pytest.mark.parametrize("escaped", sorted(ESCAPED))
def test_a_token_right_after_an_escaped_character_is_redacted(kind, escaped):
    secret = PLANTED[kind]
    done = redact.redact(ESCAPED[escaped](secret))
    assert secret not in done.text
    assert done.counts == {kind: 1}


@pytest.mark.parametrize("kind", ["github-token", "gitlab-token", "stripe-key", "openai-key"])
def test_a_token_whose_underscore_or_dash_is_escaped_is_redacted(kind):
    """A form or a URL escapes ``_`` and ``-`` too (``ghp%5F…``, ``glpat%2D…``)."""
    secret = PLANTED[kind]
    escaped = secret.replace("_", "%5F").replace("-", "%2D")
    done = redact.redact(f"GET /hook?token={escaped}&state=1")
    assert escaped not in done.text
    assert done.counts == {kind: 1}


@pytest.mark.parametrize(
    "text",
    [  # a flag that names no secret for other commands, or a password read from elsewhere
        "docker run -p 8080:80 nginx",
        "curl -k https://example.com",
        'zip -r out.zip dir && unzip -P "$ZIP_PASSWORD" a.zip',
        "openssl rsa -in key.pem -passin env:KEY_PASSPHRASE -out plain.pem",
        "openssl rsa -in key.pem -passin file:/run/secrets/pw -out plain.pem",
        'docker login -u ci -p "$DOCKER_PASSWORD" registry.example.com',
        "find . -user root -name '*.py'",
        "gcc -pass-exit-codes main.c",
        "smbclient -L nas -U guest",
        "ALTER USER app PASSWORD NULL; CREATE USER b PASSWORD '${DB_PASSWORD}';",
        "mongod -p 27017",
    ],
)
def test_a_flag_that_gives_no_password_is_left_alone(text):
    assert redact.redact(text).text == text


_WORD_PASSWORD = "Pw4" + _chars(13)


@pytest.mark.parametrize(
    "text",
    [  # a password a command takes as a word of its own, or reads from its input
        f"htpasswd -b -c /etc/nginx/.htpasswd admin {_WORD_PASSWORD}",
        f"htpasswd -nbB admin '{_WORD_PASSWORD}' > auth/htpasswd",
        f"rabbitmqctl change_password guest {_WORD_PASSWORD}",
        f"useradd -p $(openssl passwd -6 -salt xyz {_WORD_PASSWORD}) app",
        f"mysqladmin -u root -h db password {_WORD_PASSWORD}",
        f"gh secret set NPM_TOKEN --body={_WORD_PASSWORD} --repo o/r",
        f"sqlcmd -S db -U sa -P {_WORD_PASSWORD}",
        f"cf login -a https://api.example.com -u me -p {_WORD_PASSWORD}",  # Cloud Foundry
        f"echo {_WORD_PASSWORD} | sudo -S systemctl restart nginx",
        f"echo -n '{_WORD_PASSWORD}' | sudo --stdin true",
        f"printf '%s\\n' {_WORD_PASSWORD} | podman login -u me --password-stdin quay.io",
        f"printf %s {_WORD_PASSWORD} | helm registry login r.io -u me --password-stdin",
        f"echo '{_WORD_PASSWORD}' | passwd --stdin deploy",
        f'echo "deploy:{_WORD_PASSWORD}" | sudo chpasswd',
        json.dumps(json.dumps({"command": f"echo '{_WORD_PASSWORD}' | sudo -S ls"})),
        f'sudo -S apt-get update <<< "{_WORD_PASSWORD}"',
        f"docker login -u me --password-stdin r.io <<< {_WORD_PASSWORD}",
        f"chpasswd <<< 'deploy:{_WORD_PASSWORD}'",
        f"gh auth login --with-token <<< {_WORD_PASSWORD}",
        f"vault login -token={_WORD_PASSWORD}",  # Go's tools: one dash
        f"consul acl policy list -token {_WORD_PASSWORD}",
        f"gpg --batch --passphrase '{_WORD_PASSWORD}' -c notes.txt",
        f"az vm create -n vm --admin-username azureuser --admin-password {_WORD_PASSWORD}",
        f"aws rds create-db-instance --master-user-password '{_WORD_PASSWORD}' --engine mysql",
        f"kubectl create secret docker-registry r --docker-password={_WORD_PASSWORD}",
        f"deploy --github-token {_WORD_PASSWORD}",
        f'$pw = ConvertTo-SecureString "{_WORD_PASSWORD}" -AsPlainText -Force',
        f"ssh-keygen -t ed25519 -N '{_WORD_PASSWORD}' -f deploy_key",
        f"rar a -p{_WORD_PASSWORD} backup.rar data/",
        f"printf '%s' '{_WORD_PASSWORD}' | gh auth login --with-token",
        # in code and settings: a call's user and password, a subscript, .NET's appSettings
        f"requests.get(url, auth=('deploy', '{_WORD_PASSWORD}'))",
        f'session.auth = HTTPBasicAuth("deploy", "{_WORD_PASSWORD}")',
        f"smtp.login('me@example.com', '{_WORD_PASSWORD}')",
        f"os.environ['DB_PASSWORD'] = '{_WORD_PASSWORD}'",
        f'ENV["SECRET_TOKEN"] = "{_WORD_PASSWORD}"',
        f'<add key="Smtp.Password" value="{_WORD_PASSWORD}" />',
        f'SECRET_KEY: str = "{_WORD_PASSWORD}"',
        f'DB_PASSWORD: str = "{_WORD_PASSWORD}"',
        f"const API_TOKEN: &str = '{_WORD_PASSWORD}';",
        f"define( 'DB_PASSWORD', '{_WORD_PASSWORD}' );",
        f"define('NONCE_SALT', '{_WORD_PASSWORD}');",
        f'System.setProperty("javax.net.ssl.keyStorePassword", "{_WORD_PASSWORD}")',
        f"monkeypatch.setenv('STRIPE_API_KEY', '{_WORD_PASSWORD}')",
        f'os.putenv("DB_PASSWORD", "{_WORD_PASSWORD}")',
        f"set -gx OPENAI_API_KEY {_WORD_PASSWORD}",
        f"influx -username admin -password {_WORD_PASSWORD}",
        # remote desktops, Windows' shares and users, Oracle, Wi-Fi, management controllers
        f"sshpass -p'{_WORD_PASSWORD}' scp build.tar deploy@host:",
        f"xfreerdp /v:10.0.0.5 /u:alice /p:{_WORD_PASSWORD} +clipboard",
        f"rdesktop -u alice -p {_WORD_PASSWORD} 10.0.0.5",
        f"net use Z: \\\\fs01\\share /user:CORP\\alice {_WORD_PASSWORD} /persistent:no",
        f"net use \\\\fs01\\share {_WORD_PASSWORD} /user:CORP\\alice",
        json.dumps({"command": f"net use \\\\fs01\\share {_WORD_PASSWORD} /user:alice"}),
        f'NET USER deploy "{_WORD_PASSWORD}" /ADD /DOMAIN',
        f"sqlplus -s scott/{_WORD_PASSWORD}@//db.example.com:1521/XE @report.sql",
        f"expdp system/{_WORD_PASSWORD}@orcl schemas=app directory=dp",
        f"nmcli device wifi connect HomeNet password {_WORD_PASSWORD}",
        f"nmcli connection modify office wifi-sec.psk '{_WORD_PASSWORD}'",
        f"wpa_passphrase 'Home Net' {_WORD_PASSWORD} >> /etc/wpa_supplicant.conf",
        f'network={{\n    ssid="HomeNet"\n    psk="{_WORD_PASSWORD}"\n}}',
        f"WIFI_PSK={_WORD_PASSWORD}",
        f"ipmitool -I lanplus -H 10.0.0.9 -U admin -P {_WORD_PASSWORD} chassis status",
        f"hdiutil attach -passphrase {_WORD_PASSWORD} vault.dmg",
        f"Invoke-Sqlcmd -ServerInstance db -Username sa -Password {_WORD_PASSWORD}",
        f'[Environment]::SetEnvironmentVariable("DB_PASSWORD", "{_WORD_PASSWORD}", "User")',
        f"echo {_WORD_PASSWORD} > ~/.vault_pass",
        f"echo '{_WORD_PASSWORD}' | sudo tee /etc/ansible/vault-password.txt",
        f"echo 'open {_WORD_PASSWORD} sesame' | sudo -S apt update",
        json.dumps(f"cd /srv\nnet user deploy {_WORD_PASSWORD} /add"),  # after an escaped break
        f"curl 'https://api.example.com/v1/items?q=x&key={_WORD_PASSWORD}'",
        f"lftp -u deploy,{_WORD_PASSWORD} sftp://files.example.com",
        f'db_password <- "{_WORD_PASSWORD}"',  # R
        # a LUKS passphrase on cryptsetup's input, an HTML password field, Expect and pexpect
        f"echo -n '{_WORD_PASSWORD}' | sudo cryptsetup luksOpen /dev/sdb1 vault -",
        f'cryptsetup open --type luks /dev/sdb1 vault <<< "{_WORD_PASSWORD}"',
        f'<input type="password" name="pw" value="{_WORD_PASSWORD}">',
        f"<input class=x value='{_WORD_PASSWORD}'\n  type=password>",
        json.dumps(f'<input id="p" type="password" value="{_WORD_PASSWORD}" />'),
        f'spawn ssh deploy@host\nexpect "password:"\nsend "{_WORD_PASSWORD}\\r"\n',
        f'expect "*assword*" {{ send -- "{_WORD_PASSWORD}\\r" }}',
        json.dumps(f'expect "Passphrase for key: "\nsend "{_WORD_PASSWORD}\\r"'),
        f"child.expect('Password:')\nchild.sendline('{_WORD_PASSWORD}')",
        # a quoted password holding what ends a command elsewhere
        f'net user deploy "{_WORD_PASSWORD}&|;<>" /add',
        f"net use \\\\fs01\\share '{_WORD_PASSWORD}<;' /user:alice",
        # flags of MQTT, PyPI's twine, PuTTY, x11vnc, Redis; Redis's and keepalived's settings
        f"mosquitto_pub -h broker -u iot -P {_WORD_PASSWORD} -t t -m hi",
        f"twine upload -u deploy -p {_WORD_PASSWORD} dist/*",
        f"plink -pw {_WORD_PASSWORD} deploy@host uptime",
        f"pscp -pw {_WORD_PASSWORD} build.tar deploy@host:/srv",
        f"x11vnc -display :0 -passwd {_WORD_PASSWORD}",
        f"redis-server --requirepass {_WORD_PASSWORD}",
        f"bind 0.0.0.0\nrequirepass {_WORD_PASSWORD}\n",
        f'redis-cli CONFIG SET requirepass "{_WORD_PASSWORD}"',
        f"vrrp_instance VI_1 {{\n  authentication {{\n    auth_pass {_WORD_PASSWORD}\n  }}\n}}",
        f'admin_pw = "{_WORD_PASSWORD}"',
        # Java: a property or an entry named for a password, JDBC; npm's registry credentials
        f'<property name="hibernate.connection.password" value="{_WORD_PASSWORD}"/>',
        f'<param name="password" value="{_WORD_PASSWORD}">',
        f'<entry key="db.password">{_WORD_PASSWORD}</entry>',
        f'Connection c = DriverManager.getConnection(url, "app", "{_WORD_PASSWORD}");',
        f"npm config set //registry.npmjs.org/:_authToken {_WORD_PASSWORD}",
        # databases' shells and tools, Windows' accounts, keychains, what reads its input
        f'db.auth("admin", "{_WORD_PASSWORD}")',
        f"neo4j-admin dbms set-initial-password {_WORD_PASSWORD}",
        f"cqlsh -u cassandra -p {_WORD_PASSWORD} db.example.com",
        f"rabbitmqadmin -u admin -p {_WORD_PASSWORD} list queues",
        f"influx setup -u admin -p {_WORD_PASSWORD} -o org -b bucket -f",
        f'gh secret set DB_PASSWORD -b"{_WORD_PASSWORD}"',
        "Set-ADAccountPassword -Identity u -NewPassword "
        f'(ConvertTo-SecureString -AsPlainText "{_WORD_PASSWORD}" -Force)',
        f"psexec \\\\host -u admin -p {_WORD_PASSWORD} cmd",
        f"winrs -r:host -u:admin -p:{_WORD_PASSWORD} cmd",
        f"dsmod user cn=u,dc=example -pwd {_WORD_PASSWORD}",
        f"cmdkey /add:srv /user:u /pass:{_WORD_PASSWORD}",
        f"security add-generic-password -a me -s svc -w {_WORD_PASSWORD}",
        f"ssh-add ~/.ssh/id_ed25519 <<< '{_WORD_PASSWORD}'",
        f'docker secret create db_pass - <<< "{_WORD_PASSWORD}"',
        f'printf "{_WORD_PASSWORD}" | docker secret create db_pass -',
        f'vercel env add SECRET production <<< "{_WORD_PASSWORD}"',
        f'RUN echo -e "{_WORD_PASSWORD}\\n{_WORD_PASSWORD}" | passwd root',
        f'passwd deploy <<< "{_WORD_PASSWORD}\n{_WORD_PASSWORD}"',
        # a user's password in clear, a NuGet feed's, SQL Server's old tool, secrets stores
        f"usermod -p {_WORD_PASSWORD} deploy",
        f"dotnet nuget add source https://nuget.example.com/v3 -u me -p {_WORD_PASSWORD}",
        f"osql -S db -U sa -P {_WORD_PASSWORD} -Q 'select 1'",
        f"doppler secrets set STRIPE_KEY {_WORD_PASSWORD}",
        f"netlify env:set STRIPE_KEY '{_WORD_PASSWORD}'",
        f'var c = new NetworkCredential("deploy", "{_WORD_PASSWORD}");',
        f"gpg --batch --passphrase-fd 0 -c notes.txt <<< '{_WORD_PASSWORD}'",
        f"echo {_WORD_PASSWORD} | gpg --batch --yes --passphrase-fd 0 -c notes.txt",
        f"vncpasswd -f <<< {_WORD_PASSWORD} > ~/.vnc/passwd",
        # prose: a password that looks random, as a task given to a subagent says it
        f"check the billing db; password is {_WORD_PASSWORD}",
        f'The password was "{_WORD_PASSWORD}", then it was rotated.',
        f"echo {_WORD_PASSWORD} | gh secret set DEPLOY_KEY --repo o/r",
        f"printf '%s' '{_WORD_PASSWORD}' | wrangler secret put API_KEY",
        f'echo -n "{_WORD_PASSWORD}" | gcloud secrets versions add db --data-file=-',
        f"echo {_WORD_PASSWORD} | pass insert -e web/me",
        f"kinit admin@EXAMPLE.COM <<< {_WORD_PASSWORD}",
        f'wrangler secret put API_KEY <<< "{_WORD_PASSWORD}"',
        json.dumps(json.dumps({"command": f"echo '{_WORD_PASSWORD}' | kinit admin@EXAMPLE.COM"})),
        # code: a call given the password as a literal; a browser test typing it; C's #define
        f'new Sequelize("app", "deploy", "{_WORD_PASSWORD}", {{ dialect: "mysql" }})',
        f'$pdo = new PDO("mysql:host=db;dbname=app", "deploy", "{_WORD_PASSWORD}");',
        f'$db = mysqli_connect("db", "deploy", "{_WORD_PASSWORD}", "app");',
        f'ftp = ftplib.FTP("files.example.com", "deploy", "{_WORD_PASSWORD}")',
        f'ldap.simple_bind_s("cn=admin,dc=example,dc=com", "{_WORD_PASSWORD}")',
        f'token = jwt.encode(payload, "{_WORD_PASSWORD}", algorithm="HS256")',
        f"const token = jwt.sign({{ id }}, '{_WORD_PASSWORD}')",
        f'mac = hmac.new(b"{_WORD_PASSWORD}", body, hashlib.sha256)',
        f'cipher = AES.new(b"{_WORD_PASSWORD}", AES.MODE_GCM)',
        f'await page.fill("#password", "{_WORD_PASSWORD}")',
        f"await page.type('input[name=password]', '{_WORD_PASSWORD}')",
        f'fill_in "Password", with: "{_WORD_PASSWORD}"',
        f'await page.getByLabel("Password").fill("{_WORD_PASSWORD}")',
        f"cy.get('#password').type('{_WORD_PASSWORD}')",
        f'driver.find_element(By.ID, "password").send_keys("{_WORD_PASSWORD}")',
        f'nodemailer.createTransport({{ auth: {{ user: "me", pass: "{_WORD_PASSWORD}" }} }})',
        f'{{"username": "me", "pass": "{_WORD_PASSWORD}"}}',
        f'{{ login: "me@example.com", pass: "{_WORD_PASSWORD}" }}',
        f'#define DB_PASSWORD "{_WORD_PASSWORD}"',
        f"jwt.verify(token, '{_WORD_PASSWORD}')",
        f'digest = crypto.createHmac("sha256", "{_WORD_PASSWORD}").update(body)',
        f"keyring set smtp deploy <<< '{_WORD_PASSWORD}'",
        f"http -a deploy:{_WORD_PASSWORD} https://api.example.com/items",
        # a name and value pair: Kubernetes' env, ECS's task definitions, phpunit's <env>
        f"env:\n  - name: DB_PASSWORD\n    value: {_WORD_PASSWORD}\n",
        f'- name: "SMTP_PASSWORD"\n  value: "{_WORD_PASSWORD}"',
        f'{{"name": "DB_PASSWORD", "value": "{_WORD_PASSWORD}"}}',
        json.dumps(json.dumps({"name": "DB_PASSWORD", "value": _WORD_PASSWORD})),
        f'<env name="DB_PASSWORD" value="{_WORD_PASSWORD}"/>',
        # an S3-compatible store's secret key, not shaped like AWS's
        f"aws configure set aws_secret_access_key {_WORD_PASSWORD}",
        f"aws configure set --profile r2 default.aws_secret_access_key '{_WORD_PASSWORD}'",
        f"rclone config create r2 s3 provider Cloudflare secret_access_key {_WORD_PASSWORD} acl x",
        # a Go MySQL driver's data source name
        f'dsn := "root:{_WORD_PASSWORD}@tcp(127.0.0.1:3306)/app?parseTime=true"',
        f'db, err := sql.Open("mysql", "app:{_WORD_PASSWORD}@/app")',
        f"DB_DSN=app:{_WORD_PASSWORD}@unix(/run/mysqld/mysqld.sock)/app",
    ],
)
def test_a_password_in_a_command_or_in_code_is_redacted(text):
    done = redact.redact(text)
    assert _WORD_PASSWORD not in done.text
    assert "assigned-secret" in done.counts


@pytest.mark.parametrize(
    "token",
    [
        _chars(52, string.ascii_lowercase + "234567"),  # an Azure DevOps personal access token
        _chars(40, "0123456789abcdef"),  # GitHub's older tokens
        "Ab1" + _chars(37),
    ],
)
def test_a_token_as_an_address_user_is_redacted(token):
    texts = (
        f"git clone https://{token}@dev.azure.com/org/project/_git/repo",
        f"git remote set-url origin 'https://{token}@git.example.com/org/repo.git'",
    )
    _hidden(texts, token, "url-credentials")


_FERNET_KEY = _chars(43, string.ascii_letters + string.digits + "_-")


@pytest.mark.parametrize(
    "text",
    [
        f'f = Fernet(b"{_FERNET_KEY}=")',
        f"cipher = Fernet(key=b'{_FERNET_KEY}=')",
        f'MultiFernet([Fernet(b"{_FERNET_KEY}="), Fernet(old_key)])',
        json.dumps(f'f = Fernet("{_FERNET_KEY}=")'),
    ],
)
def test_a_key_given_to_fernet_is_redacted(text):
    done = redact.redact(text)
    assert _FERNET_KEY not in done.text
    assert done.counts == {"assigned-secret": 1}


def test_fernet_without_a_key_written_out_is_left_alone():
    for text in ("f = Fernet(key)", "Fernet(Fernet.generate_key())", 'Fernet(os.environ["KEY"])'):
        assert redact.redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [  # a user's name, shorter or made of words, or letters only
        "git clone https://git@github.com/org/repo.git",
        "https://jenkins-deploy-user-2024-production@ci.example.com/job/x",
        "https://contoso2024@dev.azure.com/contoso2024/project/_git/repo",
        "https://abcdefghijklmnopqrstuvwxyzabcdefgh@example.com",
    ],
)
def test_a_user_name_in_an_address_is_left_alone(text):
    assert redact.redact(text).text == text


@pytest.mark.parametrize(
    "token", ["s." + _chars(24), "hvs." + _chars(90), "b.AAAAAQ" + _chars(40), "r." + _chars(24)]
)
def test_a_token_given_to_vault_login_is_redacted(token):
    texts = (f"vault login {token}", f"vault login -address=https://v:8200 '{token}'")
    _hidden(texts, token, "vault-token")


@pytest.mark.parametrize(
    "text",
    [
        "vault login -method=userpass username=alice",
        "x = s.Ab3dEfGhIjKlMnOpQrStUvWx",  # the shape of a token, not given to vault login
    ],
)
def test_vault_login_without_a_token_is_left_alone(text):
    assert redact.redact(text).text == text


@pytest.mark.parametrize("scheme", ["ApiKey", "SSWS", "Splunk"])
def test_a_key_after_an_authorization_scheme_is_redacted(scheme):
    key = "Tk7" + _chars(29)
    done = redact.redact(f'curl -H "Authorization: {scheme} {key}" https://api.example.com')
    assert key not in done.text
    assert done.total == 1
    text = f'curl -H "Authorization: {scheme} ${{API_KEY}}" https://api.example.com'
    assert redact.redact(text).text == text


@pytest.mark.parametrize("quote", ["'", '"'])
def test_a_password_in_sql_is_redacted_in_either_quote(quote):
    texts = (
        f"GRANT ALL ON *.* TO app@localhost IDENTIFIED BY {quote}{_WORD_PASSWORD}{quote};",
        f"SET PASSWORD FOR app@localhost = PASSWORD({quote}{_WORD_PASSWORD}{quote});",
    )
    _hidden(texts, _WORD_PASSWORD, "sql-password")


def test_a_signed_address_has_its_signature_redacted():
    hex_signature, sas = _chars(64, "0123456789abcdef"), _chars(43) + "%3D"
    for text, secret in (
        (
            "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=3600"
            f"&X-Amz-SignedHeaders=host&X-Amz-Signature={hex_signature}",
            hex_signature,
        ),
        (f"https://storage.googleapis.com/b/o?X-Goog-Signature={hex_signature * 8}", hex_signature),
        (f"https://a.blob.core.windows.net/c/b?sp=r&sv=2022-11-02&sr=b&sig={sas}", sas),
    ):
        _hidden([text], secret, "url-signature")
    # a commit's hash in the same place, a short value named sig: too short for a signature
    text = f"?X-Amz-SignedHeaders=host&X-Amz-Signature={hex_signature[:40]}&sig=lowres_preview"
    assert redact.redact(text).text == text


def test_a_secret_found_once_is_redacted_where_the_text_holds_it_again():
    text = f"export DB_PASSWORD={_WORD_PASSWORD}\nmysql -u app -h db app  # typed: {_WORD_PASSWORD}"
    done = redact.redact(text)
    assert _WORD_PASSWORD not in done.text
    assert done.counts == {"assigned-secret": 2}
    # a password that reads as a word stays a word elsewhere in the text
    text = "POSTGRES_PASSWORD=postgres\nimage: postgres:16"
    assert redact.redact(text).text.endswith("image: postgres:16")


def test_an_aws_secret_key_in_prose_or_after_a_flag_is_redacted():
    key_id, secret = "AKIA" + _chars(16, string.ascii_uppercase + "234567"), _chars(40, _B64)
    for text in (
        f"AWS key {key_id} secret {secret}",
        f"access key {key_id} and secret key is {secret}",
        f"the aws secret key is {secret}",
        f"aws s3 ls --aws-secret-access-key {secret}",
    ):
        done = redact.redact(text)
        assert secret not in done.text, text
    for text in ("the secret key is stored in vault", "--aws-secret-access-key $AWS_SECRET"):
        assert redact.redact(text).text == text


def test_a_secret_found_in_one_text_of_a_conversation_is_redacted_in_the_others():
    shown = f"mysql -u app -p{_WORD_PASSWORD} app"
    repeated = f"Done: the password {_WORD_PASSWORD} works."
    with redact.remembering():
        # in one call: the value before the one that shows the secret, keys too
        done, counts = redact.redact_data([repeated, {repeated: shown}, repeated])
        assert _WORD_PASSWORD not in json.dumps(done)
        assert counts == {"assigned-secret": 4}
        # in a later call, and in a text with no place a rule may match
        assert redact.redact(repeated).counts == {"assigned-secret": 1}
        assert redact.redact_data(_WORD_PASSWORD)[0].startswith("[REDACTED:")
        # a secret that reads as a word is not looked for elsewhere
        redact.redact("export DB_PASSWORD=postgres")
        assert redact.redact("image: postgres:16").text == "image: postgres:16"
    # the conversation's secrets are not another's; one structure is one conversation
    assert redact.redact(repeated).text == repeated
    assert _WORD_PASSWORD not in json.dumps(redact.redact_data([repeated, shown])[0])


def test_a_password_named_key_takes_any_value_a_token_named_one_only_a_token():
    # as in ``PASSWORD=postgres`` and ``API_TOKEN=disabled``, in the other ways of writing them
    for text in ('DB_PASSWORD: str = "postgres"', "define('DB_PASSWORD', 'postgres');"):
        assert redact.redact(text).counts == {"assigned-secret": 1}, text
    for text in ('API_TOKEN: str = "disabled"', "define('API_TOKEN', 'disabled');"):
        assert redact.redact(text).text == text


def test_a_password_before_an_earlier_finding_is_redacted_too():
    token = PLANTED["github-token"]
    text = f'echo "{_WORD_PASSWORD}" | docker login -u {token} --password-stdin'
    done = redact.redact(text)
    assert _WORD_PASSWORD not in done.text
    assert token not in done.text
    assert done.counts == {"assigned-secret": 1, "github-token": 1}
    assert done.text.index("assigned-secret") < done.text.index("github-token")


@pytest.mark.parametrize(
    "text",
    [  # the same commands with no password in them, or one read from elsewhere
        "openssl passwd -6 -stdin < pw.txt",
        "openssl passwd -6 -in passwords.txt",
        "htpasswd -c /etc/nginx/.htpasswd admin",
        "htpasswd -B -C 10 .htpasswd bob",
        "rabbitmqctl add_user deploy",
        "doppler secrets set STRIPE_KEY",
        "netlify env:set STRIPE_KEY $STRIPE_KEY",
        "usermod -p '$6$salt$hash' deploy",
        "new NetworkCredential(user, password)",
        "gpg --batch --passphrase-fd 0 -c notes.txt < pass.txt",
        "cat pw.txt | kinit bob",
        'echo "$DEPLOY_KEY" | gh secret set DEPLOY_KEY',
        "| kinit | asks for the password |",
        "echo value | kinitialize",
        'kinit bob <<< "$KRB_PASSWORD"',
        "grep -c needle <<< haystack-of-words",
        "The password is incorrect.",
        "the password is stored in vault/kv2, password is required",
        "Password is <your-password>, the password is $DB_PASSWORD",
        "mysqladmin -u root -p password",
        "Use mysqladmin to change the password with care",
        'gh secret set API_KEY --body "$API_KEY"',
        "gh secret set NAME < secret.txt",
        "gh issue create -b 'the secret set up' -t title",
        "git checkout -b secret-set",
        "echo done | sudo tee /etc/motd",
        "cat pw.txt | docker login -u bob --password-stdin",
        'echo "$CR_PAT" | docker login ghcr.io -u bob --password-stdin',
        'echo "root:${ROOT_PASSWORD}" | chpasswd',
        "sudo -S true",
        'sudo -S true <<< "$SUDO_PASSWORD"',
        'chpasswd <<< "deploy:$PW"',
        "vault token create -policy=ci -token-type=batch",
        "nomad job run -token=$NOMAD_TOKEN job.hcl",
        'ssh-keygen -t ed25519 -N "" -f deploy_key',
        "ansible-playbook --ask-become-pass site.yml",
        "ansible-playbook --ask-vault-pass -i hosts site.yml",
        "psql --no-password --host=db app",
        "mysql --password --host db",
        "az vm create --admin-password $ADMIN_PASSWORD",
        "ConvertTo-SecureString $plain -AsPlainText -Force",
        "ssh -N -L 8080:localhost:80 host",
        "auth=('deploy', os.environ['DEPLOY_PASSWORD'])",
        "smtp.login(user, password)",
        "server.login('me@example.com', password)",
        "os.environ['DB_PASSWORD'] = os.getenv('PW', '')",
        "config['password'] = password",
        '<add key="PageSize" value="50" />',
        '<add key="PasswordPolicy" value="strict" />',
        "import a.b.c; see docs.example.com.abcdef.html and v1.2.3.4",
        "cache key v2-build-2026.abcdef.0123456789abcdefghijklmnopqrstuv",  # no user id first
        "aws s3 ls s3://logs-0123456789abcdef0123456789abcdef-us-east-1/",
        '<add key="ApiKey" value="disabled" />',
        '<add key="ApiKey" value="$(API_KEY)" />',
        'password: str = ""',
        'token_type: str = "bearer"',
        'sort_key: str = "created_at_2024_v2"',
        'api_token: str = "disabled"',
        'api_key: str = Field(default="")',
        "define('DB_NAME', 'wordpress');",
        "define( 'AUTH_KEY', 'put your unique phrase here' );",
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'app.settings')",
        'monkeypatch.setenv("API_TOKEN", token)',
        "monkeypatch.setenv('API_TOKEN', 'test')",
        "set -gx PATH $HOME/bin $PATH",
        "set -x API_TOKEN $TOKEN",
        "sshpass -f ~/.pw ssh deploy@host",
        "xfreerdp /v:10.0.0.5 /u:alice /p:$RDP_PASSWORD /cert:ignore",
        "rdesktop -u alice -p - 10.0.0.5 < pw.txt",
        "net use Z: \\\\fs01\\share /user:CORP\\alice /persistent:no",
        "net use \\\\fs01\\share * /user:alice",
        "net user deploy /add",
        "net user alice /domain",
        "net user deploy * /add",
        "sqlplus /nolog @setup.sql",
        "sqlplus / as sysdba",
        "sqlplus scott@orcl",
        "expdp system@orcl parfile=exp.par",
        "nmcli --ask device wifi connect HomeNet",
        'nmcli device wifi connect HomeNet password "$WIFI_PASSWORD"',
        "wpa_passphrase HomeNet < pw.txt",
        "lftp -u deploy sftp://files.example.com",
        'api_key <- Sys.getenv("API_KEY")',
        'db_password <- readline("password: ")',
        'token <- "disabled"',
        "ipmitool -I lanplus -H 10.0.0.9 -U admin -E chassis status",
        "hdiutil attach -stdinpass vault.dmg",
        "Invoke-Sqlcmd -ServerInstance db -Username sa -Password $env:SA_PASSWORD",
        '[Environment]::SetEnvironmentVariable("PATH", "C:\\tools", "User")',
        "echo $VAULT_PASSWORD > ~/.vault_pass",
        "echo passport > travel_passport.txt",
        "echo 'set passwords in the vault' | tee notes-password.md",
        "https://maps.example.com/api?key=cache&q=x",
        "https://example.com/items?key=user-profile-settings&sort=asc",
        "psk=$WIFI_PSK",
        "nmcli will ask for the password when you connect",
        "wpa_passphrase prints a psk; run wpa_passphrase MyNet shortpw to see it refused",
        "use net use with /user:alice then type the password",
        'PASSWORD="paste_your_password_here"',
        'DB_PASSWORD="db-password-placeholder"',
        "cryptsetup luksOpen /dev/sdb1 vault",  # asks on the terminal
        'echo "$LUKS_PASSPHRASE" | cryptsetup open /dev/sdb1 vault -',
        '<input type="text" name="user" value="alice.smith">',
        '<input type="password" name="pw" value="">',
        '<input type="password" value="{{ form.password }}">',
        '<input type="hidden" value="Xk9vQ2mLp7Zz">\n<input type="password" name="pw">',
        'expect "login:"\nsend "alice.smith\\r"',
        'expect "password:"\nsend "$password\\r"',
        "child.expect('Password:')\nchild.sendline(password)",
        'send "make test\\r"',
        "widget.send('refresh')",
        "def update(value='default'): return value",
        'net user "John Smith" /add',
        "requirepass is the setting that protects Redis",
        "Set auth_pass in keepalived.conf\nauth_pass sets the VRRP password",
        "redis-server --requirepass $REDIS_PASSWORD",
        'twine upload dist/* -u __token__ -p "$PYPI_TOKEN"',
        '<property name="password.policy" value="strict"/>',
        '<property name="passwordPolicy" value="strict"/>',
        '<label for="password">Type it twice</label>',
        "DriverManager.getConnection(url, user, password)",
        'DriverManager.getConnection(url, "app", password)',
        "npm config set //registry.npmjs.org/:_authToken ${NPM_TOKEN}",
        "plink -batch deploy@host uptime",
        "security find-generic-password -s svc -w",
        "ssh-add -l",
        'echo "$ROOT_PASSWORD" | passwd --stdin root',
        'chpasswd <<< "deploy:$PW" && smbpasswd -a deploy',
        'psexec \\\\host -u admin -p "$PW" cmd',
        "neo4j-admin dbms set-initial-password $NEO4J_PASSWORD",
        "Use db.auth(user, pwd) to log in",
        'new Sequelize(process.env.DB, process.env.USER, process.env.PASSWORD, { dialect: "pg" })',
        'jwt.encode(payload, key, algorithm="HS256")',
        'jwt.sign(payload, process.env.JWT_SECRET, { expiresIn: "1h" })',
        "hmac.new(key, body, hashlib.sha256)",
        'await page.fill("#password", password)',
        'await page.fill("#username", "alice.smith")',
        'cy.get("#password").type("{enter}")',
        'fill_in "Password", with: user.password',
        "auth: { user: process.env.SMTP_USER, pass: process.env.SMTP_PASS }",
        "const checks = { lint: 'done', pass: 'green' }",
        '{"email_count": 3, "pass": "green"}',
        '{"username": "me", "pass": true}',
        'columns = ("username", "password", "created_at")',
        'label = t("password", "Mot de passe")',
        '#define PASSWORD_MAX 64\n#define DB_PASSWORD_ENV "DB_PASSWORD"',
        "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db",
        "- name: LOG_LEVEL\n  value: debug",
        '{"name": "DB_PASSWORD", "value": "${DB_PASSWORD}"}',
        "- name: API_TOKEN_ENABLED\n  value: yes_please",
        '<env name="APP_ENV" value="testing"/>',
        "wget https://example.com/f.tar.gz -a wget.log",
        'crypto.createHmac("sha256", secret).update(body)',
        'jwt.decode(token, options={"verify_signature": False})',
        "aws configure set aws_secret_access_key default_secret_key",
        'aws configure set aws_secret_access_key "$AWS_SECRET_ACCESS_KEY"',
        "rclone config create remote s3 provider AWS env_auth true",
        "the secret_access_key is kept in rclone.conf",
        'dsn := fmt.Sprintf("%s:%s@tcp(%s)/%s", user, pass, host, name)',
        'dsn := "user:password@tcp(127.0.0.1:3306)/dbname"',  # the driver's documentation
        "dsn: root@tcp(localhost:3306)/app",
        'db, err := sql.Open("postgres", "host=db user=app sslmode=disable")',
    ],
)
def test_the_same_commands_and_code_without_a_password_are_left_alone(text):
    assert redact.redact(text).text == text


_SESSION = _chars(32)


@pytest.mark.parametrize(
    "text",
    [  # a web app's session, which signs its holder in: in a header, curl's -b, a script
        f"< Set-Cookie: sessionid={_SESSION}; expires=Sun, 13 Dec 2026; HttpOnly; Path=/",
        f"Cookie: csrftoken=abc; _myapp_session={_SESSION}--a1b2c3d4; theme=dark",
        f"curl -b 'PHPSESSID={_SESSION}' https://example.com/admin",
        f'curl --cookie "JSESSIONID={_SESSION}" https://example.com/',
        f'document.cookie = "connect.sid=s%3A{_SESSION}.sig";',
        f"Set-Cookie: ASP.NET_SessionId={_SESSION}; path=/",
    ],
)
def test_a_session_cookie_is_redacted(text):
    done = redact.redact(text)
    assert _SESSION not in done.text
    assert done.counts == {"session-cookie": 1}


@pytest.mark.parametrize(
    "text",
    [
        f"session={_SESSION} is a setting of the app",
        "Cookie: theme=dark; lang=en",
        "Set-Cookie: session=; Max-Age=0",
        "Set-Cookie: session=${SESSION_COOKIE}; Path=/",
        "Set-Cookie: sessionid=short; Path=/",
    ],
)
def test_what_is_no_session_cookie_is_left_alone(text):
    assert redact.redact(text).text == text


def _quoted(text: str) -> str:
    return urllib.parse.quote(text, safe="")


_FORM_SECRET, _URL_SECRET, _BEARER = _chars(26), _chars(24), _chars(30)


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [  # a separator the rules need, written percent-encoded: in a form, a URL, a log line
        (f"client_secret%3D{_FORM_SECRET}%26", _FORM_SECRET, "assigned-secret"),
        (
            "GET /login?data=" + _quoted(json.dumps({"password": "Hunter2Hunter2x"})),
            "Hunter2Hunter2x",
            "assigned-secret",
        ),
        (
            "GET /?next=" + _quoted(f"https://y/cb?access_token={_URL_SECRET}"),
            _URL_SECRET,
            "assigned-secret",
        ),
        (f"Authorization%3A%20Bearer%20{_BEARER}", _BEARER, "bearer-token"),
        (
            "https%3A%2F%2Fadmin%3AS3cr3tPassw0rd%40db.internal%2Fapp",
            "S3cr3tPassw0rd",
            "url-credentials",
        ),
        ("https://u:p%40ssW0rd1@example.com/x", "ssW0rd1", "url-credentials"),
        # written with HTML character references: an attribute's value, a page's text
        (
            'data-config="' + html.escape(json.dumps({"api_key": "q8Zr2LmN5vT1xYw4"})) + '"',
            "q8Zr2LmN5vT1xYw4",
            "assigned-secret",
        ),
        ("password&#61;Hunter2Hunter2x and more", "Hunter2Hunter2x", "assigned-secret"),
        ("&lt;password&gt;Hunter2Hunter2x&lt;/password&gt;", "Hunter2Hunter2x", "xml-password"),
    ],
)
def test_a_secret_behind_an_escaped_separator_is_redacted(text, secret, kind):
    done = redact.redact(text)
    assert secret not in html.unescape(urllib.parse.unquote(done.text))
    assert done.counts == {kind: 1}


@pytest.mark.parametrize(
    "text",
    [
        "printf('%3d %s %20s\\n', count, name, path)",
        "GET /docs/My%20File%3A%20notes.md HTTP/1.1 200",
        "https://example.com/search?q=a%3Db%26c%3Dd",
        "progress 100%20 files",
        "%3D" * 50_000,  # a long run of escapes: decoded once
        "if (a && b) { x = '&quot;' } &lt;b&gt;bold&lt;/b&gt; a &#x3D; b",
        "&quot;" * 50_000,
    ],
)
def test_escaped_separators_without_a_secret_are_left_alone(text):
    assert redact.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (
            "postgres://admin:S3cr3tPassw0rd@db.internal:5432/app",
            "S3cr3tPassw0rd",
            "url-credentials",
        ),
        (
            "curl -H 'Authorization: Bearer abcDEF123456ghiJKL789' https://api",
            "abcDEF123456ghiJKL789",
            "bearer-token",
        ),
        ("DB_PASSWORD=hunter2Xy9zQ", "hunter2Xy9zQ", "assigned-secret"),
        ('{"client_secret": "9f8e7d6c5b4a3F2E1D0C"}', "9f8e7d6c5b4a3F2E1D0C", "assigned-secret"),
        ("api_key: q8Zr2LmN5vT1xYw4", "q8Zr2LmN5vT1xYw4", "assigned-secret"),
        ("GITHUB_TOKEN := Zk3Lq9Wm2Rt7Yv5N", "Zk3Lq9Wm2Rt7Yv5N", "assigned-secret"),
    ],
)
def test_keyword_and_structure_rules(text, secret, kind):
    done = redact.redact(text)
    assert secret not in done.text
    assert done.counts == {kind: 1}


@pytest.mark.parametrize(
    "text",
    [
        '"sessionId": "4d5611e5-241a-462a-8d15-5122611a9569"',
        "commit 8cc42b0b3f2a9d1e5c7b6a4f0e9d8c7b6a5f4e3d",
        "sha256: 9b74c9897bac770ffc029102a200c5de9b74c9897bac770ffc029102a200c5de",
        '"output_tokens": 4096, "cache_read_input_tokens": 120394',
        "password: changeme",
        "token = get_token()",
        "the password is stored in the vault",
        'secret: "${SECRET_FROM_ENV}"',
        "authored by Jane Doe; author: jdoe",
        "https://example.com/path?query=1",
        "toolu_01ABCDefGhijKLmnoPQRstuv and msg_01XyZAbCdEfGhIjKlMnOpQr",
    ],
)
def test_ordinary_text_is_left_alone(text):
    assert redact.redact(text).text == text


def test_placeholders_are_stable_and_redaction_is_idempotent():
    secret = PLANTED["github-token"]
    first = redact.redact(f"a {secret} b {secret}")
    assert first.counts == {"github-token": 2}
    placeholders = {part for part in first.text.split() if part.startswith("[REDACTED")}
    assert len(placeholders) == 1
    assert redact.redact(first.text).text == first.text
    assert redact.redact(f"password={first.text.split()[1]}").counts == {}


def test_nested_data_is_redacted_everywhere():
    data = {"messages": [{"text": PLANTED["jwt"]}, {PLANTED["google-api-key"]: 1}], "n": 3}
    clean, counts = redact.redact_data(data)
    dumped = json.dumps(clean)
    assert PLANTED["jwt"] not in dumped
    assert PLANTED["google-api-key"] not in dumped
    assert counts == {"jwt": 1, "google-api-key": 1}
    assert clean["n"] == 3


# The one secret in the real transcripts: a Phoenix test config's secret_key_base value.
PHOENIX_SECRET = "test-only-secret-base-minimum-64-bytes-long-enough-for-phoenix-token-signing-ok"


def test_real_transcripts_have_no_false_positives():
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        findings = redact.find(path.read_text(encoding="utf-8", errors="replace"))
        others = [(f.kind, f.secret[:12]) for f in findings if f.secret != PHOENIX_SECRET]
        assert others == [], f"{path.name}: {others}"


def test_a_long_run_without_an_assignment_is_fast_enough_to_finish():
    # A trigger followed by a long word once made a nested quantifier backtrack exponentially.
    text = "token" + "a" * 5000 + " " + "auth" + "b1" * 3000
    assert redact.redact(text).counts == {}


_B64 = string.ascii_letters + string.digits + "+/"
AWS_ID = "AKIA" + _chars(16, string.ascii_uppercase + "234567")
AWS_SECRET = _chars(40, _B64)


@pytest.mark.parametrize(
    "text",
    [
        f"aws configure set aws_secret_access_key {AWS_SECRET}",
        f'aws configure set aws_secret_access_key "{AWS_SECRET}" --profile dev',
        f"aws configure set profile.dev.aws_secret_access_key {AWS_SECRET}",
        json.dumps(f'aws configure set aws_secret_access_key "{AWS_SECRET}"'),  # escaped
        json.dumps(json.dumps(f"run\naws configure set aws_secret_access_key {AWS_SECRET}")),
    ],
)
def test_aws_configure_set_with_the_secret_after_a_space_is_redacted(text):
    done = redact.redact(text)
    assert AWS_SECRET not in done.text
    assert done.counts == {"aws-secret-key": 1}


def test_aws_configure_set_session_token_is_redacted():
    token = "FwoGZXIvYXdzE" + _chars(300, _B64) + "=="
    done = redact.redact(f"aws configure set aws_session_token {token} --profile dev")
    assert token[:40] not in done.text
    assert done.counts == {"aws-session-token": 1}


@pytest.mark.parametrize(
    "text",
    [
        "run `aws configure set aws_secret_access_key` and paste the key",
        "aws configure set aws_secret_access_key $AWS_SECRET_ACCESS_KEY",
        "aws configure get aws_secret_access_key --profile dev",
    ],
)
def test_aws_configure_without_a_secret_is_left_alone(text):
    assert redact.redact(text).text == text


@pytest.mark.parametrize(
    "between",
    [" ", ",", " | ", "\t", "\n", "\r\n", "\\n", '", "', "\\n    ", ":\n  "],
    ids=repr,
)
@pytest.mark.parametrize("secret_first", [False, True], ids=["id-first", "secret-first"])
def test_a_bare_aws_secret_key_next_to_its_id_is_redacted(between, secret_first):
    text = AWS_SECRET + between + AWS_ID if secret_first else AWS_ID + between + AWS_SECRET
    done = redact.redact(f"keys: {text} done")
    assert AWS_SECRET not in done.text
    assert AWS_ID not in done.text
    assert done.counts == {"aws-access-key": 1, "aws-secret-key": 1}


def test_a_hex_hash_next_to_an_aws_key_id_is_not_taken_for_its_secret():
    sha = "8cc42b0b3f2a9d1e5c7b6a4f0e9d8c7b6a5f4e3d"
    for text in (f"{AWS_ID}\n{sha}", f"{sha} {AWS_ID}"):
        done = redact.redact(text)
        assert sha in done.text
        assert done.counts == {"aws-access-key": 1}


_KEYS = sorted(set(secret_rules.STRONG_KEYS + secret_rules.TOKEN_KEYS))


@pytest.mark.parametrize("key", _KEYS)
def test_every_secret_named_key_is_found_with_each_quoting(key):
    """The scan checks a key's last characters, Python the whole key: none may be lost."""
    value = "8q" + _chars(14) + "7"  # not a name: code is left alone
    for written in (
        f"MY{key.upper()}={value}",
        f'"my{key}": "{value}"',
        f"my{key}: {value}",
        json.dumps(json.dumps({f"app{key}": value})),
    ):
        done = redact.redact(written)
        assert value not in done.text, written
        assert sum(done.counts.values()) == 1, (written, done.counts)


@pytest.mark.parametrize(
    "text",
    [  # a key named "…_key" given a name, an id, a path or code: no secret
        'sort_key = "createdAtTimestamp2024"',
        "primary_key=True",
        '{"cacheKey": "userProfileCacheKeyV2"}',
        's3_key = "uploads/2024/report.pdf"',
        "idempotency_key: 7f3e2a1b-4c5d-4e6f-8a9b-0c1d2e3f4a5b",
        'i18nKey="checkout.title"',
        '{"key": "ArrowUp", "code": "ArrowUp"}',
        'const primaryKey = "id";',
        'partitionKey: "tenantId"',
        '{"Key": "backups/a1b2c3d4e5f6g7h8i9j0k1"}',  # S3's object key
        'const hotKey = "ctrl+shift+k";',
    ],
)
def test_a_key_named_key_with_no_key_in_it_is_left_alone(text):
    assert redact.redact(text).text == text


_CAMEL_KEY = "Xq9vB2nT7kLm4pRs8wZy3cDf"


@pytest.mark.parametrize(
    "text",
    [  # a key named "…Key" in code and configuration, its value one that looks like a key
        f'const signingKey = "{_CAMEL_KEY}";',
        f"  encryptionKey: '{_CAMEL_KEY}',",
        f'{{"mapsKey": "{_CAMEL_KEY}"}}',
        json.dumps(json.dumps({"webhookKey": _CAMEL_KEY})),
        f"curl -H 'Ocp-Apim-Subscription-Key: {_CAMEL_KEY}' https://api.example.com",
    ],
)
def test_a_key_named_only_key_in_camel_case_or_a_header_is_redacted(text):
    done = redact.redact(text)
    assert _CAMEL_KEY not in done.text
    assert done.counts == {"assigned-secret": 1}


def test_a_key_ending_like_a_secret_named_one_is_not_one():
    # the scan's first test passes (the last characters match), the whole key does not
    for text in (
        '"monkey": "Zq8aB3dE5fG7hJ9k"',
        "hotkey=Zq8aB3dE5fG7hJ9k",
        '"latency": "Zq8aB3dE5fG7hJ9k"',
    ):
        assert redact.redact(text).text == text


def test_repeated_strings_are_counted_each_time_and_clean_ones_are_shared():
    clean_text = "an ordinary line of text, long enough to be scanned"
    data = [{"a": "PASSWORD=hunter2xyz", "b": clean_text}] * 3
    result, counts = redact.redact_data(data)
    assert counts == {"assigned-secret": 3}
    assert all("hunter2xyz" not in item["a"] for item in result)
    assert all(item["b"] is clean_text for item in result)


def test_redaction_from_the_places_found_is_redaction_from_the_start():
    """``redact(text, places)`` (the caller looked already) redacts as ``redact(text)``, with
    the built-in rules and with a config's own pattern."""
    from tests.secret_corpus import corpus

    items = corpus(7)
    texts = ["", "nothing to see here\n" * 50, "\n".join(item.line for item in items)]
    texts += [f"Bash\n{item.line}\n{json.dumps(item.line)}\nafter" for item in items]
    try:
        for extra in ((), (("acme", r"ACME-\d{6}"),)):
            redact.configure(extra)
            changed = 0
            for text in [*texts, "ticket ACME-654321 and " + texts[2]]:
                expected = redact.redact(text)
                places = redact.scanner().places(text)
                if places.next(0) is not None:
                    again = redact.redact(text, places)
                    assert (again.text, again.counts) == (expected.text, expected.counts)
                    assert redact.scanner().find(text, places=places) == redact.find(text)
                changed += expected.text != text
            assert changed == len(texts) - 1  # all but the two without a secret, plus the last
    finally:
        redact.configure()


def test_a_process_finds_the_same_before_and_after_it_compiles_the_whole_expression():
    """A new process looks at its first texts rule by rule, from the characters rules stop at
    (compiling the whole expression costs more than a hook's one task); it finds the same as
    the whole expression, in secrets, in their escaped forms and in real transcripts."""
    from tests.secret_corpus import corpus

    lines = [item.line for item in corpus(3)]
    texts = [*lines, *map(json.dumps, lines), *(json.dumps(json.dumps(line)) for line in lines)]
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        whole = path.read_text(encoding="utf-8", errors="replace")
        texts += [whole[at : at + 1500] for at in range(0, min(len(whole), 30_000), 1500)]
    texts += ["a_" * 300, "x sk-" * 100, "key=" * 200, ":" * 500, "-p " * 200]
    compiled = redact.Scanner()
    compiled.find("x" * 1_000_000)  # more than a process looks at rule by rule
    fresh, batch = redact.Scanner(), 0
    for text in texts:
        batch += len(text)
        if batch > 1500:  # well within what one process looks at rule by rule
            fresh, batch = redact.Scanner(), len(text)
        assert fresh.find(text) == compiled.find(text), text[:80]
        assert fresh.find(text, assignments=False) == compiled.find(text, assignments=False)


@pytest.mark.parametrize("length", [30_000, 80_000])
def test_a_process_finds_the_same_in_a_long_first_text(length):
    """A process's first text (a short command's whole output) is looked at rule by rule up to
    what compiling costs, the whole expression taking over half-way if it holds more places
    than expected; it finds the same as the whole expression."""
    compiled = redact.Scanner()
    compiled.find("x" * 1_000_000)
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        text = path.read_text(encoding="utf-8", errors="replace")[:length]
        assert redact.Scanner().find(text) == compiled.find(text), path.name


_TOKEN = "ghp_" + _chars(36)


@pytest.mark.parametrize(
    "text",
    [
        f'GH = "{_TOKEN[:14]}" + "{_TOKEN[14:]}"',
        f'token = "".join(["{_TOKEN[:10]}", "{_TOKEN[10:25]}", "{_TOKEN[25:]}"])',
        f"token = ''.join(('{_TOKEN[:10]}', '{_TOKEN[10:]}'))",
        f'token = "".join([\n    "{_TOKEN[:10]}",\n    "{_TOKEN[10:]}",\n])',
        f'const t = ["{_TOKEN[:10]}",\n  "{_TOKEN[10:]}"].join("");',
        f'head = "{_TOKEN[:14]}"\ntail = "{_TOKEN[14:]}"\ntoken = head + tail\nprint(token)',
        f'head = "{_TOKEN[:14]}"\ntail = "{_TOKEN[14:]}"\ntoken = f"{{head}}{{tail}}"',
        f'HEAD="{_TOKEN[:14]}"\nTAIL="{_TOKEN[14:]}"\nexport GH_TOKEN="${{HEAD}}${{TAIL}}"',
        f"const a = '{_TOKEN[:20]}';\nconst b = '{_TOKEN[20:]}';\nfetch(u, {{auth: a + b}})",
        f't = "{_TOKEN[:10]}"\nt += "{_TOKEN[10:]}"',
        f'gh = "{_TOKEN[:10]}"\nif ok:\n    gh += "{_TOKEN[10:25]}"\ngh += "{_TOKEN[25:]}"',
        f"let t = '{_TOKEN[:14]}';\nt += '{_TOKEN[14:]}';",
        f'T="{_TOKEN[:14]}"\nT+="{_TOKEN[14:]}"',
        f'token = "%s%s" % ("{_TOKEN[:10]}", "{_TOKEN[10:]}")',
        f'token = "%s%s%s" % (\n    "{_TOKEN[:10]}",\n    "{_TOKEN[10:25]}",\n    "{_TOKEN[25:]}",\n)',
        f'token = "{_TOKEN[:14]}%s" % "{_TOKEN[14:]}"',
        f'token = "{{}}{{}}".format("{_TOKEN[:10]}", "{_TOKEN[10:]}")',
        f"token = '{{1}}{{0}}'.format('{_TOKEN[20:]}', '{_TOKEN[:20]}')",
        f'token = "{_TOKEN[:10]}" "{_TOKEN[10:]}"',
        f'token = (\n    "{_TOKEN[:10]}"\n    "{_TOKEN[10:25]}"\n    "{_TOKEN[25:]}"\n)',
        f'const char *token = "{_TOKEN[:14]}"\n                    "{_TOKEN[14:]}";',
        f'export GH_TOKEN="{_TOKEN[:14]}""{_TOKEN[14:]}"',
        f"export GH_TOKEN='{_TOKEN[:14]}''{_TOKEN[14:]}'",
        f'token = ""\nfor part in ["{_TOKEN[:10]}", "{_TOKEN[10:25]}", "{_TOKEN[25:]}"]:\n    token += part',
        f"let t = '';\nfor (const p of ['{_TOKEN[:14]}', '{_TOKEN[14:]}']) t += p;",
        # cut inside its prefix: no rule has a place to start from in the text as written (the
        # names found after an escaped line break too: ``\\nhead``)
        f'# the token\nhead = "{_TOKEN[:2]}"\ntail = "{_TOKEN[2:]}"\nvalue = head + tail',
        f'export HEAD="{_TOKEN[:2]}"\nexport TAIL="{_TOKEN[2:]}"\necho "${{HEAD}}${{TAIL}}"',
        f"for (const p of ['{_TOKEN[:2]}', '{_TOKEN[2:]}']) t = t.concat(p);",
    ],
)
def test_a_token_written_in_pieces_is_redacted_in_every_piece(text):
    for written in (text, json.dumps(text), json.dumps(json.dumps(text))):
        done = redact.redact(written)
        assert done.counts == {"github-token": done.total}, written
        assert not any(_TOKEN[n:] in done.text for n in (10, 14, 20, 25)), done.text


def test_a_piece_of_a_joined_token_is_redacted_where_else_it_stands():
    """A tool call is shown on its line and again as its input: the literal is there twice,
    joined once; both are the token's."""
    text = (
        f'- `Bash`: t="{_TOKEN[:14]}"\n{{"command": "t=\\"{_TOKEN[:14]}\\""}}\n'
        f'- `Bash`: t+="{_TOKEN[14:]}"\n{{"command": "t+=\\"{_TOKEN[14:]}\\""}}\n'
    )
    done = redact.redact(text)
    assert _TOKEN[:14] not in done.text
    assert _TOKEN[14:] not in done.text
    assert done.text.count("[REDACTED:github-token:") == 4
    short = 'a = "ghp_"\nprint("ghp_")\na += "' + _TOKEN[4:] + '"'  # a piece too short to chase
    whole = f't="{_TOKEN[:14]}"\nt+="{_TOKEN[14:17]}"\nt+="{_TOKEN[17:]}"\necho {_TOKEN}'
    assert _TOKEN[14:17] not in redact.redact(whole).text  # the token also written whole
    joined = redact.redact(short).text
    assert _TOKEN[4:] not in joined
    assert 'print("ghp_")' in joined


@pytest.mark.parametrize(
    "text",
    [
        'a = "x1"\nb = "y2"\nc = a + b',
        'greeting = "hello " + name',
        'sep = ", ".join(["alpha", "beta"])',
        'first = "ghp_"\nrest = "short"\nlabel = first + rest',
        'label = "".join(["sk-", "proj"])',
        'out = ""\nfor line in lines:\n    out += "> " + line\nout += "\\n"',
        'path = "src"\npath += "/purlin_resume"\npath += "/core/pieces.py"',
        'total += 1\nname += "_v2"\nPATH+=":/usr/local/bin"',
        'print("%s: %s" % ("status", "ok"))\nrate = "%d%%" % 95\nmsg = "%s=%s" % (key, value)',
        'url = "https://%s/%s" % ("example.com", "api/v1/items")',
        'print("{}-{}".format("alpha", "beta"))\nlog("{0} of {1}".format(done, total))',
        'label = "{}{}".format("sk-", "proj")\nrow = "{:>8}".format("x")',
        'message = ("Hello, "\n           "world")\nsql = "SELECT a " "FROM t " "WHERE b = 1"',
        'git commit -m "fix" "src/app.py"\necho "$HOME" "$PATH"\nprintf "%s\\n" "done"',
        'greeting = "ghp_" "short"\nparts = "sk-" "proj-" "x"',
        'for ext in [".py", ".md", ".txt"]:\n    paths += glob(ext)',
        'for (const k of ["alpha", "beta"]) out += k;',
    ],
)
def test_pieces_that_make_no_secret_are_left_alone(text):
    for written in (text, json.dumps(text), json.dumps(json.dumps(text))):
        assert redact.redact(written).text == written


@pytest.mark.parametrize(
    "text",
    [
        f"export GITHUB_TOKEN={_TOKEN}",
        f"token: {_TOKEN} + more, {{x}} 50% done, a.join(b) for c",
        f"DB_PASSWORD=hunter2hunter2 and {_TOKEN}",
        f"url https://deploy:hunter2hunter2@example.com/x then {_TOKEN}",
    ],
)
def test_a_text_without_quotes_still_has_every_secret_found(text):
    # no quote: no string literal, so no pieces are looked for; the rules still run
    done = redact.redact(text)
    assert _TOKEN not in done.text, done.text
    assert "hunter2hunter2" not in done.text, done.text
    assert done.counts.get("github-token") == 1


def test_a_kubernetes_secret_in_json_has_each_value_redacted_and_a_config_map_none():
    value, other = (base64.b64encode(_chars(n).encode()).decode() for n in (20, 12))
    secret = {"apiVersion": "v1", "data": {"tls.key": value, "user": other}, "kind": "Secret"}
    for text in (
        json.dumps(secret),
        json.dumps(secret, indent=4),
        json.dumps(secret, separators=(",", ":")),
        json.dumps(json.dumps(secret, indent=2)),
    ):
        done = redact.redact(text)
        assert value not in done.text, text
        assert other not in done.text, text
        assert done.counts == {"kubernetes-secret": 2}
    written = '{"kind": "Secret", "stringData": {"password": "open sesame 42"}}'
    assert "open sesame" not in redact.redact(written).text
    config_map = json.dumps(dict(secret, kind="ConfigMap"))
    assert redact.redact(config_map).text == config_map


@pytest.mark.parametrize(
    "text",
    [
        "api_key: a8f5f167f44f4964e6c998dee827110c",  # YAML
        "X-Api-Key: a8f5f167f44f4964e6c998dee827110c",  # an HTTP header
        "token = 4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a9f",
        "auth_token: k3j4h5g6f7d8s9a0",
        "DD_API_KEY: A8F5F167F44F4964E6C998DEE827110C",
        "api_token: abcdefghijklmnopqrstuvwxyzQRST2024xyz",  # its digits far from its start
    ],
)
def test_a_token_written_out_after_a_spaced_key_is_redacted(text):
    """A value that starts with a letter is shaped like a name, but one of 16 characters or
    more that mixes digits and letters is not a name: a token (a hex key, most often)."""
    value = text.split()[-1]
    done = redact.redact(text)
    assert value not in done.text
    assert done.counts == {"assigned-secret": 1}


@pytest.mark.parametrize(
    "text",
    ["token: str", "api_key: api_key_v2", "auth: oauth2", "token: self.token", "auth: kerberos5"],
)
def test_a_name_after_a_spaced_key_is_left_alone(text):
    assert redact.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("password=Hunter2SuperSecret!", "Hunter2SuperSecret!"),  # a word for secret in it
        ("export DB_PASSWORD=Hunter2SuperSecret", "Hunter2SuperSecret"),
        ("password: Hunter2SuperSecret", "Hunter2SuperSecret"),
        ("api_key: Xk9vQ2mLp7Rt", "Xk9vQ2mLp7Rt"),  # shorter than 16, shaped like PascalCase
        ("API_KEY=xk9vq2mlp7rt", "xk9vq2mlp7rt"),
    ],
)
def test_a_value_with_digits_inside_its_words_is_a_secret_not_a_name(text, value):
    for written in (text, json.dumps(text)):
        done = redact.redact(written)
        assert value not in done.text, done.text
        assert done.counts == {"assigned-secret": 1}


@pytest.mark.parametrize(
    "text",
    ["api_key: awsS3Bucket", "token: Oauth2Client", "auth: kerberos5"],
)
def test_a_name_with_a_digit_at_a_word_end_or_once_inside_is_left_alone(text):
    assert redact.redact(text).text == text


def test_a_configured_pattern_whose_secret_group_is_empty_or_left_out():
    try:
        # ``s`` marks the secret; where it has no part in a match, the match is the secret
        redact.configure([("ticket", r"ACME-\d{6}|TICKET=(?P<s>\w*)")])
        done = redact.redact("TICKET= there, TICKET=abc1 and ACME-123456")
    finally:
        redact.configure()
    assert done.counts == {"ticket": 2}
    assert done.text.startswith("TICKET= there, TICKET=[REDACTED:ticket:")
    assert "abc1" not in done.text
    assert "ACME-123456" not in done.text


_PGPASS = "db.internal:5432:app:deploy:Pg9xQ2vLm7"


@pytest.mark.parametrize(
    "text",
    [
        _PGPASS,  # the very start of the text
        f"*:*:*:*:{_PGPASS[-10:]}",
        f"cat ~/.pgpass\n{_PGPASS}\n",
        f'{{"output": "localhost:5432:*:me:x\\n{_PGPASS}\\n"}}',  # after an escaped line break
        f"'{_PGPASS}'",
        f"{_PGPASS}\\r\\nnext",
        "h:1:db:u:Pg9xQ2vLm7",  # a one-digit port
    ],
)
def test_a_pgpass_line_is_redacted_wherever_it_starts(text):
    for scanner in (redact.Scanner(), _compiled()):  # from the characters, and compiled
        found = [f for f in scanner.find(text) if f.kind == "pgpass-password"]
        assert [f.secret for f in found][-1:] == ["Pg9xQ2vLm7"], text


@pytest.mark.parametrize(
    "text",
    ["host:123456:db:user:secretvalue", "a:b:c:d:secretvalue"],
)
def test_a_colon_list_that_is_no_pgpass_line_is_left_alone(text):
    assert not [f for f in _compiled().find(text) if f.kind == "pgpass-password"]


def _compiled() -> redact.Scanner:
    scanner = redact.Scanner()
    scanner.pattern  # noqa: B018 (compiled first: every text is looked at by the expression)
    return scanner


def test_a_secret_gets_one_placeholder_written_out_or_inside_json():
    """A tool input's private key is shown with its line breaks by ``transcript`` and escaped by
    ``redact report`` or a JSON rendering: one placeholder names it in all of them."""
    key = PLANTED["private-key"]
    texts = (key, json.dumps(key), json.dumps(json.dumps({"content": key})))
    shown = [redact.redact(text).text for text in texts]
    [placeholder] = {redact.PLACEHOLDER.search(text).group() for text in shown}
    assert placeholder.startswith("[REDACTED:private-key:")
