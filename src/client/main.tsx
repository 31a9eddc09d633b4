import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

// Placeholder until the app shell lands: tells whoever opens the server that it runs.
function Placeholder() {
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: '2rem 1.25rem', maxWidth: '30rem', margin: '0 auto' }}>
      <h1 style={{ fontSize: '1.5rem' }}>Road Test Data</h1>
      <p>The server is running. The sign-in screen and the record screens are on their way; the API is served under /api.</p>
    </main>
  );
}

const root = document.getElementById('root');
if (root) createRoot(root).render(<StrictMode><Placeholder /></StrictMode>);
