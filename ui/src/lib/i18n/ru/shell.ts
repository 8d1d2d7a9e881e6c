// Русские тексты оболочки; ключи те же, что в en/shell.ts.
import type en from '../en/shell';

export default {
  'app.name': 'Core Portal',
  'app.loading': 'Загрузка…',
  'signin.title': 'Вход',
  'signin.login': 'Логин',
  'signin.password': 'Пароль',
  'signin.authType': 'Учётная запись',
  'signin.authType.local': 'Учётная запись портала',
  'signin.authType.domain': 'Доменная учётная запись',
  'signin.submit': 'Войти',
  'signin.wrong': 'Неверный логин или пароль.',
  'signin.throttled': 'Слишком много попыток. Повторите через {seconds} с.',
  'signin.sessionEnded': 'Сеанс завершён. Войдите снова, чтобы продолжить.',
  'error.generic': 'Что-то пошло не так: {message}',
  'error.network': 'Портал недоступен. Проверьте подключение и повторите.',
  'error.forbidden.title': 'Нет доступа',
  'error.forbidden.text': 'У вас нет прав на эту страницу.',
  'error.notFound.title': 'Не найдено',
  'error.notFound.text': 'Такой страницы нет, или она вам недоступна.',
  'dialog.close': 'Закрыть',
  'lang.label': 'Язык',
  'lang.en': 'English',
  'lang.ru': 'Русский',
} satisfies Record<keyof typeof en, string>;
