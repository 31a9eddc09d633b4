// A sign-in flood from another process, as attackers' machines would send it: the test's own
// event loop (which runs the server) then carries only the server's work.
// argv[2]: JSON { url, waves, perWave, waveMs, net, usernames: string[] }; prints the statuses as JSON.
import http from 'node:http';

const { url, waves, perWave, waveMs, net, usernames } = JSON.parse(process.argv[2]);
const target = new URL('/api/auth/login', url);

function login(address, username, password) {
  const data = Buffer.from(JSON.stringify({ username, password }));
  return new Promise((resolve) => {
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': String(data.length), 'x-forwarded-for': address } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(data);
  });
}

const all = [];
for (let w = 0; w < waves; w++) {
  if (w > 0) await new Promise((r) => setTimeout(r, waveMs));
  for (let a = 0; a < perWave; a++) {
    all.push(login(`10.${net}.${Math.floor(a / 100)}.${a % 100}`, usernames[(w * perWave + a) % usernames.length], `wrong-${w}`));
  }
  if (w === 0) process.send?.('started');
}
process.send?.(JSON.stringify(await Promise.all(all)));
