/** What the open-in-browser page says, in one language. `{app}` in `inApp` is the app's name. */
export interface OpenInBrowserTexts {
  lang: string;
  title: string;
  /** Why: the app's own browser may not open this link properly. */
  why: string;
  /** Said when the app is known. */
  inApp: string;
  /** How: the app's menu, then its browser item. */
  how: string;
  /** Or: copy the address into the browser. */
  copy: string;
  copyButton: string;
  anyway: string;
}

/** The languages of the open-in-browser page, by primary language subtag. */
export const OPEN_IN_BROWSER_TEXTS: Readonly<Record<string, OpenInBrowserTexts>> = {
  en: {
    lang: 'en',
    title: 'Open this link in your browser',
    why: "This app's built-in browser may not open this link properly.",
    inApp: 'You are in {app}.',
    how: 'Tap the menu (⋯ or ⋮, usually at the top right), then “Open in browser”.',
    copy: 'Or copy the address and paste it into your browser:',
    copyButton: 'Copy',
    anyway: 'Continue here anyway',
  },
  de: {
    lang: 'de',
    title: 'Diesen Link im Browser öffnen',
    why: 'Der eingebaute Browser dieser App öffnet diesen Link womöglich nicht richtig.',
    inApp: 'Sie sind in {app}.',
    how: 'Tippen Sie auf das Menü (⋯ oder ⋮, meist oben rechts) und dann auf „Im Browser öffnen“.',
    copy: 'Oder kopieren Sie die Adresse und fügen Sie sie in Ihren Browser ein:',
    copyButton: 'Kopieren',
    anyway: 'Trotzdem hier weiter',
  },
  fr: {
    lang: 'fr',
    title: 'Ouvrir ce lien dans votre navigateur',
    why: 'Le navigateur intégré de cette application risque de mal ouvrir ce lien.',
    inApp: 'Vous êtes dans {app}.',
    how: 'Touchez le menu (⋯ ou ⋮, en général en haut à droite), puis « Ouvrir dans le navigateur ».',
    copy: "Ou copiez l'adresse et collez-la dans votre navigateur :",
    copyButton: 'Copier',
    anyway: 'Continuer ici quand même',
  },
  es: {
    lang: 'es',
    title: 'Abre este enlace en tu navegador',
    why: 'Es posible que el navegador integrado de esta aplicación no abra bien este enlace.',
    inApp: 'Estás en {app}.',
    how: 'Toca el menú (⋯ o ⋮, normalmente arriba a la derecha) y luego «Abrir en el navegador».',
    copy: 'O copia la dirección y pégala en tu navegador:',
    copyButton: 'Copiar',
    anyway: 'Continuar aquí de todos modos',
  },
  pt: {
    lang: 'pt',
    title: 'Abra este link no seu navegador',
    why: 'O navegador integrado deste aplicativo pode não abrir este link corretamente.',
    inApp: 'Você está no {app}.',
    how: 'Toque no menu (⋯ ou ⋮, geralmente no canto superior direito) e depois em “Abrir no navegador”.',
    copy: 'Ou copie o endereço e cole-o no seu navegador:',
    copyButton: 'Copiar',
    anyway: 'Continuar aqui mesmo assim',
  },
  zh: {
    lang: 'zh',
    title: '请在浏览器中打开此链接',
    why: '此应用的内置浏览器可能无法正常打开此链接。',
    inApp: '您正在使用{app}。',
    how: '点击右上角的菜单（⋯ 或 ⋮），然后选择“在浏览器中打开”。',
    copy: '或复制以下地址，粘贴到浏览器中：',
    copyButton: '复制',
    anyway: '仍然在此继续',
  },
  ja: {
    lang: 'ja',
    title: 'このリンクをブラウザで開いてください',
    why: 'このアプリの内蔵ブラウザでは、このリンクが正しく開かない場合があります。',
    inApp: '現在 {app} 内で表示しています。',
    how: 'メニュー（⋯ または ⋮、通常は右上）をタップし、「ブラウザで開く」を選んでください。',
    copy: 'またはアドレスをコピーして、ブラウザに貼り付けてください：',
    copyButton: 'コピー',
    anyway: 'このまま続ける',
  },
};
