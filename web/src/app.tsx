import { useEffect, useState } from 'preact/hooks';
import { storedKey, storeKey } from './lib/api';
import { clearChat } from './lib/chat-store';
import { href, useRoute } from './lib/router';
import { ChatPage } from './pages/chat-page';
import { ProjectsPage } from './pages/projects-page';
import { ReaderPage } from './pages/reader-page';
import { SearchPage } from './pages/search-page';
import { SignIn } from './pages/sign-in';

const pages = [
  ['search', 'Search'],
  ['projects', 'Projects'],
  ['chat', 'Chat'],
] as const;

/** The shell: sign-in gate, navigation, and the page of the current hash route. */
export function App() {
  const [key, setKey] = useState(storedKey());
  const [notice, setNotice] = useState<string | null>(null);
  const route = useRoute();

  useEffect(() => {
    const onUnauthorized = (event: Event) => {
      storeKey(null);
      setKey(null);
      setNotice(`Signed out: ${(event as CustomEvent<string>).detail}`);
    };
    window.addEventListener('alexandria:unauthorized', onUnauthorized);
    return () => window.removeEventListener('alexandria:unauthorized', onUnauthorized);
  }, []);

  // Moves focus to the new page's heading, so keyboard and screen-reader users land on it (without
  // scrolling: the chat restores where the user was reading).
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus({ preventScroll: true });
  }, [route.page, key]);

  if (!key) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(value) => {
          setNotice(null);
          setKey(value);
        }}
      />
    );
  }

  const signOut = () => {
    storeKey(null);
    clearChat();
    setKey(null);
  };

  return (
    <>
      <header class="top">
        <a class="brand" href={href('search')}>
          Alexandria
        </a>
        <nav aria-label="Main">
          <ul>
            {pages.map(([page, label]) => (
              <li key={page}>
                <a href={href(page)} aria-current={route.page === page ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        {route.page === 'read' ? (
          <ReaderPage params={route.params} />
        ) : route.page === 'projects' ? (
          <ProjectsPage params={route.params} />
        ) : route.page === 'chat' ? (
          <ChatPage />
        ) : (
          <SearchPage params={route.params} />
        )}
      </main>
    </>
  );
}
