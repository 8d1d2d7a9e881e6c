package main

import (
	"math/rand/v2"
	"strings"
)

// Business vocabulary of an intranet, Russian (in several inflections, as
// text has them) and English; drawn with a Zipf distribution so that a few
// words are very common and most are rare, like real text.
var vocabulary = strings.Fields(`
договор договора договоры договоров поставка поставки поставок счёт счета счетов оплата оплаты акт акта актов
заявка заявки заявок отчёт отчета отчёты отчетов проект проекта проекты проектов сотрудник сотрудника сотрудники
отдел отдела отделы директор директора директором бухгалтерия бухгалтерии склад склада складе товар товара товары
клиент клиента клиенты клиентов заказ заказа заказы заказов служба службы приказ приказа приказы совещание совещания
протокол протокола протоколы бюджет бюджета бюджеты квартал квартала года году месяц месяца неделя недели график
графика сроки срок срока задача задачи задач решение решения согласование согласования подпись подписи печать
документ документа документы документов регламент регламента инструкция инструкции обучение обучения отпуск отпуска
командировка командировки премия премии зарплата зарплаты налог налога налоги аудит аудита проверка проверки
ремонт ремонта оборудование оборудования сервер сервера серверы сеть сети доступ доступа пароль пароля учётная запись
компания компании филиал филиала филиалы Москва Москвы Петербург Казань Новосибирск офис офиса офисе встреча встречи
партнёр партнера партнёры поставщик поставщика поставщики цена цены стоимость стоимости скидка скидки маркетинг
продажи продаж выручка выручки прибыль прибыли расходы расходов план плана планы стратегия стратегии риск риски
contract contracts supply supplier suppliers invoice invoices payment payments report reports project projects
employee employees department departments director manager managers accounting warehouse goods customer customers
order orders service services meeting meetings minutes budget budgets quarter year month week schedule deadline
deadlines task tasks decision approval approvals signature document documents policy policies instruction training
vacation travel bonus salary tax taxes audit audits review reviews repair equipment server servers network access
password account company branch branches office offices partner partners price prices cost discount marketing
sales revenue profit expenses plan plans strategy risk risks release releases update updates migration backup
security incident incidents request requests ticket tickets customer support onboarding handbook roadmap milestone
`)

// syllables build the long tail of the vocabulary (names, terms, codes):
// real text has tens of thousands of distinct words, and a query word is
// rarer the larger the vocabulary.
var (
	ruSyllables = strings.Fields("ка ро ми на ле то ва си по ду ре ко ла те ни мо ры жа лу за")
	enSyllables = strings.Fields("ka ro mi na le to va si po du re ko la te ni mo ry ja lu za")
)

// tailWords is the size of the synthetic tail, after the business words.
const tailWords = 30000

func init() {
	for i := 0; i < tailWords; i++ {
		syl := ruSyllables
		if i%3 == 2 {
			syl = enSyllables
		}
		var b strings.Builder
		for n := i + 1; n > 0 || b.Len() < 6; n /= len(syl) {
			b.WriteString(syl[n%len(syl)])
		}
		vocabulary = append(vocabulary, b.String())
	}
}

// business is how many real words lead the vocabulary (the queries draw from
// them); package variables are set before init appends the tail.
var business = len(vocabulary)

// text draws n words.
type textGen struct {
	rng  *rand.Rand
	zipf *rand.Zipf
}

func newTextGen(seed uint64) *textGen {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &textGen{rng: rng, zipf: rand.NewZipf(rng, 1.07, 8, uint64(len(vocabulary)-1))}
}

func (g *textGen) word() string { return vocabulary[g.zipf.Uint64()] }

func (g *textGen) words(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.word())
	}
	return b.String()
}

// queryWords are two distinct words drawn uniformly from the business words
// (so that queries range from very common to rare words, and vary: cold-ish).
func (g *textGen) queryWords() string {
	a := vocabulary[g.rng.IntN(business)]
	b := a
	for b == a {
		b = vocabulary[g.rng.IntN(business)]
	}
	return a + " " + b
}
