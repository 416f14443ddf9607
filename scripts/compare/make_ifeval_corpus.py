"""Writes datasets/ifeval/diff_corpus.jsonl: hand-written responses crossed with
IFEval instructions, aimed at boundaries (exact counts for each relation),
tokenizer corner cases (abbreviations, quotes, contractions, Markdown) and
loose-only passes. Deterministic: the same file on every run.

Usage: python3 scripts/compare/make_ifeval_corpus.py > datasets/ifeval/diff_corpus.jsonl
"""

import json

ENGLISH = [
    "The committee met on Monday. Dr. Smith presented the budget, e.g. the costs of roads and schools. "
    "Everyone agreed at 5 p.m. and the meeting ended.",
    "I CAN'T believe it! The U.S. team won again... Did you see the final score? It was 3.5 to 2.",
    "Mr. J. R. Tolkien wrote many books. His work is loved worldwide. \"Read them,\" she said. (They are long.) Enjoy!",
    "Rain fell all night\n\nThe river rose by morning\n\nBy noon the town was quiet again.",
    "Here is a short answer with no sentence end",
    "Wait... what? No way! Really?! Yes. OK.",
    "The price rose 4.5% in Q3. Analysts at Goldman Sachs Inc. expected less. Shares fell 2 pts. on Friday.",
    "She said: 'It is done.' Then she left. The door closed behind her -- quietly.",
    "Section one covers apples. Section two covers pears.\nThe end.",
    "This is the first line.\nThis is the second line.\nAnd this is the third line, which is longer than the others.",
    "Vol. 3 of the report is due in Jan. next year. See pp. 4-5 for details. Thanks to St. Mary's staff.",
    "1. Buy milk. 2. Walk the dog. 3. Call mom.",
    "\"Why?\" he asked. \"Because,\" she replied. The end!",
    "Our team of 12 engineers worked for 3 months; the result was a 40% faster build. It shipped on time.",
    "AI is changing the world. MACHINE LEARNING models are EVERYWHERE now. Is that GOOD or BAD?",
]

LOWER = [
    "the quick brown fox jumps over the lazy dog while the farmer watches from the old wooden porch.",
    "i think this is a good idea. let's try it tomorrow morning before the meeting starts at nine.",
    "all lowercase except THIS word which breaks the rule completely for the checker today.",
    "123 456 789",
    "el perro come la comida en la cocina cada mañana antes de que salga el sol sobre la ciudad.",
]

UPPER = [
    "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG WHILE THE FARMER WATCHES FROM THE PORCH.",
    "I THINK THIS IS A GOOD IDEA. LET'S TRY IT TOMORROW MORNING BEFORE THE MEETING STARTS.",
    "THIS IS ALMOST ALL CAPITALS but not quite, so the check should fail on it.",
    "EL PERRO COME LA COMIDA EN LA COCINA CADA MAÑANA ANTES DE QUE SALGA EL SOL SOBRE LA CIUDAD.",
    "42 !!!",
]

LANG_TEXTS = {
    "en": "Yesterday we walked along the river and talked about the books we had read during the long winter months at home.",
    "es": "Ayer caminamos por el río y hablamos de los libros que habíamos leído durante los largos meses de invierno en casa.",
    "pt": "Ontem caminhamos ao longo do rio e conversamos sobre os livros que tínhamos lido durante os longos meses de inverno em casa.",
    "fr": "Hier, nous avons marché le long de la rivière et parlé des livres que nous avions lus pendant les longs mois d'hiver à la maison.",
    "de": "Gestern sind wir am Fluss entlang gegangen und haben über die Bücher gesprochen, die wir in den langen Wintermonaten zu Hause gelesen hatten.",
    "it": "Ieri abbiamo camminato lungo il fiume e parlato dei libri che avevamo letto durante i lunghi mesi invernali a casa.",
    "ru": "Вчера мы гуляли вдоль реки и говорили о книгах, которые прочитали долгими зимними месяцами дома.",
    "uk": "Вчора ми гуляли вздовж річки і розмовляли про книжки, які прочитали довгими зимовими місяцями вдома.",
    "bg": "Вчера се разхождахме покрай реката и говорихме за книгите, които бяхме прочели през дългите зимни месеци у дома.",
    "pl": "Wczoraj spacerowaliśmy wzdłuż rzeki i rozmawialiśmy o książkach, które przeczytaliśmy w długie zimowe miesiące w domu.",
    "fi": "Eilen kävelimme joen vartta ja puhuimme kirjoista, jotka olimme lukeneet pitkinä talvikuukausina kotona.",
    "vi": "Hôm qua chúng tôi đi dạo dọc bờ sông và nói chuyện về những cuốn sách chúng tôi đã đọc trong những tháng mùa đông dài ở nhà.",
    "ar": "بالأمس مشينا على طول النهر وتحدثنا عن الكتب التي قرأناها خلال أشهر الشتاء الطويلة في المنزل مع العائلة.",
    "fa": "دیروز در کنار رودخانه قدم زدیم و درباره کتاب‌هایی که در ماه‌های طولانی زمستان در خانه خوانده بودیم صحبت کردیم.",
    "he": "אתמול הלכנו לאורך הנהר ודיברנו על הספרים שקראנו במהלך חודשי החורף הארוכים בבית עם המשפחה.",
    "hi": "कल हम नदी के किनारे टहले और उन किताबों के बारे में बात की जो हमने सर्दियों के लंबे महीनों में घर पर पढ़ी थीं।",
    "mr": "काल आम्ही नदीच्या काठाने फिरलो आणि हिवाळ्याच्या लांब महिन्यांत घरी वाचलेल्या पुस्तकांबद्दल बोललो.",
    "ne": "हिजो हामी नदीको किनारमा हिँड्यौं र जाडोका लामो महिनाहरूमा घरमा पढेका किताबहरूको बारेमा कुरा गर्यौं।",
    "bn": "গতকাল আমরা নদীর ধারে হাঁটলাম এবং শীতের দীর্ঘ মাসগুলোতে বাড়িতে যে বইগুলো পড়েছিলাম সেগুলো নিয়ে কথা বললাম।",
    "ta": "நேற்று நாங்கள் ஆற்றங்கரையில் நடந்து, நீண்ட குளிர்கால மாதங்களில் வீட்டில் படித்த புத்தகங்களைப் பற்றி பேசினோம்.",
    "te": "నిన్న మేము నది ఒడ్డున నడిచాము మరియు సుదీర్ఘ శీతాకాల నెలల్లో ఇంట్లో చదివిన పుస్తకాల గురించి మాట్లాడుకున్నాము.",
    "kn": "ನಿನ್ನೆ ನಾವು ನದಿಯ ದಡದಲ್ಲಿ ನಡೆದೆವು ಮತ್ತು ದೀರ್ಘ ಚಳಿಗಾಲದ ತಿಂಗಳುಗಳಲ್ಲಿ ಮನೆಯಲ್ಲಿ ಓದಿದ ಪುಸ್ತಕಗಳ ಬಗ್ಗೆ ಮಾತನಾಡಿದೆವು.",
    "gu": "ગઈકાલે અમે નદીના કિનારે ચાલ્યા અને શિયાળાના લાંબા મહિનાઓમાં ઘરે વાંચેલા પુસ્તકો વિશે વાત કરી.",
    "pa": "ਕੱਲ੍ਹ ਅਸੀਂ ਨਦੀ ਦੇ ਕੰਢੇ ਤੁਰੇ ਅਤੇ ਸਰਦੀਆਂ ਦੇ ਲੰਬੇ ਮਹੀਨਿਆਂ ਵਿੱਚ ਘਰ ਪੜ੍ਹੀਆਂ ਕਿਤਾਬਾਂ ਬਾਰੇ ਗੱਲ ਕੀਤੀ।",
    "ml": "ഇന്നലെ ഞങ്ങൾ നദിക്കരയിലൂടെ നടന്നു, നീണ്ട ശൈത്യകാല മാസങ്ങളിൽ വീട്ടിൽ വായിച്ച പുസ്തകങ്ങളെക്കുറിച്ച് സംസാരിച്ചു.",
    "ur": "کل ہم دریا کے کنارے چلے اور ان کتابوں کے بارے میں بات کی جو ہم نے سردیوں کے لمبے مہینوں میں گھر پر پڑھی تھیں۔",
    "th": "เมื่อวานเราเดินเล่นริมแม่น้ำและคุยกันเรื่องหนังสือที่เราอ่านในช่วงฤดูหนาวอันยาวนานที่บ้าน",
    "ja": "昨日、私たちは川沿いを散歩し、長い冬の間に家で読んだ本について話しました。とても楽しい時間でした。",
    "ko": "어제 우리는 강을 따라 걸으며 긴 겨울 동안 집에서 읽은 책들에 대해 이야기했습니다. 정말 즐거운 시간이었습니다.",
    "sw": "Jana tulitembea kando ya mto na tukazungumza kuhusu vitabu ambavyo tulisoma wakati wa miezi mirefu ya baridi nyumbani na familia yetu.",
}

# More natural prose per language (20+ words each), in other registers.
MORE_TEXTS = {
    "en": ["Thank you for your letter. I am sorry that the order arrived late, and I have asked our warehouse to send a replacement today at no extra cost.",
           "To make the soup, chop two onions, fry them gently in butter until soft, then add the stock and simmer everything for twenty minutes."],
    "es": ["Gracias por tu carta. Siento mucho que el pedido llegara tarde; ya he pedido al almacén que envíe hoy un reemplazo sin coste adicional.",
           "Para preparar la sopa, pica dos cebollas, fríelas a fuego lento en mantequilla hasta que estén blandas y después añade el caldo."],
    "fr": ["Merci pour votre lettre. Je suis désolé que la commande soit arrivée en retard ; j'ai demandé à l'entrepôt d'envoyer un remplacement aujourd'hui.",
           "Pour préparer la soupe, coupez deux oignons, faites-les revenir doucement dans le beurre, puis ajoutez le bouillon et laissez mijoter vingt minutes."],
    "de": ["Vielen Dank für Ihren Brief. Es tut mir leid, dass die Bestellung zu spät ankam; ich habe das Lager gebeten, heute kostenlos Ersatz zu schicken.",
           "Für die Suppe zwei Zwiebeln hacken, langsam in Butter anbraten, bis sie weich sind, dann die Brühe dazugeben und alles zwanzig Minuten köcheln lassen."],
    "it": ["Grazie per la tua lettera. Mi dispiace che l'ordine sia arrivato in ritardo; ho chiesto al magazzino di spedire oggi un sostituto senza costi aggiuntivi.",
           "Per preparare la zuppa, trita due cipolle, falle rosolare lentamente nel burro finché sono morbide, poi aggiungi il brodo e lascia cuocere."],
    "pt": ["Obrigado pela sua carta. Lamento que a encomenda tenha chegado atrasada; já pedi ao armazém que envie hoje uma substituição sem custos adicionais.",
           "Para fazer a sopa, pique duas cebolas, refogue-as lentamente na manteiga até ficarem macias e depois junte o caldo e deixe cozinhar."],
    "ru": ["Спасибо за ваше письмо. Мне очень жаль, что заказ пришёл с опозданием; я попросил склад сегодня же отправить замену без дополнительной платы.",
           "Чтобы приготовить суп, нарежьте две луковицы, медленно обжарьте их на сливочном масле до мягкости, затем добавьте бульон и варите двадцать минут."],
    "pl": ["Dziękuję za list. Przykro mi, że zamówienie dotarło z opóźnieniem; poprosiłem magazyn, aby jeszcze dziś wysłał zamiennik bez dodatkowych kosztów.",
           "Aby przygotować zupę, posiekaj dwie cebule, podsmaż je powoli na maśle, aż zmiękną, a potem dodaj bulion i gotuj przez dwadzieścia minut."],
    "fi": ["Kiitos kirjeestäsi. Olen pahoillani, että tilaus saapui myöhässä; pyysin varastoa lähettämään korvaavan tuotteen tänään ilman lisämaksua.",
           "Keittoa varten pilko kaksi sipulia, kuullota niitä hitaasti voissa, kunnes ne ovat pehmeitä, lisää sitten liemi ja anna hautua kaksikymmentä minuuttia."],
    "vi": ["Cảm ơn bạn đã gửi thư. Tôi rất tiếc vì đơn hàng đến muộn; tôi đã yêu cầu kho gửi hàng thay thế ngay hôm nay mà không tính thêm phí.",
           "Để nấu súp, hãy thái hai củ hành, phi chúng thật chậm với bơ cho đến khi mềm, sau đó cho nước dùng vào và đun nhỏ lửa hai mươi phút."],
    "ja": ["お手紙ありがとうございます。ご注文の品の到着が遅れてしまい、大変申し訳ございません。本日中に追加料金なしで代わりの品を発送するよう倉庫に依頼しました。",
           "スープを作るには、玉ねぎを二つ刻み、柔らかくなるまでバターでゆっくり炒めてから、スープストックを加えて二十分ほど煮込みます。"],
    "ko": ["편지 감사합니다. 주문하신 물건이 늦게 도착해서 정말 죄송합니다. 오늘 추가 비용 없이 대체 상품을 보내 달라고 창고에 요청했습니다.",
           "수프를 만들려면 양파 두 개를 다져서 부드러워질 때까지 버터에 천천히 볶은 다음 육수를 넣고 이십 분 동안 끓이세요."],
    "ar": ["شكرا لرسالتك. يؤسفني أن الطلب وصل متأخرا، وقد طلبت من المستودع أن يرسل بديلا اليوم دون أي تكلفة إضافية عليك.",
           "لتحضير الحساء، قطّع بصلتين وقلّبهما ببطء في الزبدة حتى تنضجا، ثم أضف المرق واتركه يغلي على نار هادئة لمدة عشرين دقيقة."],
    "hi": ["आपके पत्र के लिए धन्यवाद। मुझे खेद है कि ऑर्डर देर से पहुँचा; मैंने गोदाम से कहा है कि आज ही बिना किसी अतिरिक्त शुल्क के दूसरा सामान भेज दें।",
           "सूप बनाने के लिए दो प्याज़ काटें, उन्हें मक्खन में धीरे-धीरे नरम होने तक भूनें, फिर शोरबा डालें और बीस मिनट तक पकाएँ।"],
    "uk": ["Дякую за ваш лист. Мені дуже шкода, що замовлення прийшло із запізненням; я попросив склад сьогодні ж надіслати заміну без додаткової плати.",
           "Щоб приготувати суп, наріжте дві цибулини, повільно обсмажте їх на вершковому маслі до м'якості, потім додайте бульйон і варіть двадцять хвилин."],
    "he": ["תודה על המכתב שלך. אני מצטער שההזמנה הגיעה באיחור; ביקשתי מהמחסן לשלוח היום מוצר חלופי ללא עלות נוספת.",
           "כדי להכין את המרק, קצצו שני בצלים, טגנו אותם לאט בחמאה עד שהם מתרככים, ואז הוסיפו את הציר ובשלו עשרים דקות."],
    "tr" if False else "bg": ["Благодаря ви за писмото. Съжалявам, че поръчката пристигна със закъснение; помолих склада още днес да изпрати замяна без допълнително заплащане.",
           "За да приготвите супата, нарежете две глави лук, запържете ги бавно в масло, докато омекнат, после добавете бульона и варете двадесет минути."],
    "fa": ["از نامه شما متشکرم. متأسفم که سفارش دیر رسید؛ از انبار خواستم که همین امروز یک جایگزین بدون هزینه اضافی برای شما بفرستد.",
           "برای تهیه سوپ، دو پیاز را خرد کنید، آن‌ها را آرام در کره تفت دهید تا نرم شوند، سپس آب گوشت را اضافه کنید و بیست دقیقه بپزید."],
}

rows = []


def add(ids, kwargs, response, prompt="Write a short response."):
    rows.append(
        {
            "id": f"d{len(rows):04d}",
            "prompt": prompt,
            "instruction_id_list": ids,
            "kwargs": kwargs,
            "response": response,
        }
    )


def one(iid, kw, response, prompt="Write a short response."):
    add([iid], [kw], response, prompt)


LOOSE_WRAPS = [
    lambda t: t,
    lambda t: "Sure, here it is:\n" + t,
    lambda t: t + "\nLet me know if you need anything else!",
    lambda t: "**Answer**\n" + t + "\n*Hope this helps*",
]

# keywords:existence
for kws in (["river"], ["budget", "roads"], ["machine learning", "ai"], ["book.*read"], ["Python"], ["s\\w+l"]):
    for t in ENGLISH[:8] + [LANG_TEXTS["en"]]:
        one("keywords:existence", {"keywords": kws}, t)

# keywords:frequency with exact boundaries
for word, text in (("the", ENGLISH[0]), ("is", ENGLISH[9]), ("line", ENGLISH[9]), ("AI", ENGLISH[14]), ("book", ENGLISH[2])):
    for freq in (1, 2, 3, 4):
        for rel in ("less than", "at least"):
            one("keywords:frequency", {"keyword": word, "frequency": freq, "relation": rel}, text)

# keywords:forbidden_words
for words in (["cat"], ["school", "road"], ["roads"], ["CAN"], ["the end"]):
    for t in (ENGLISH[0], ENGLISH[1], "The category of this item is unclear.", ENGLISH[12], "concatenate strings"):
        one("keywords:forbidden_words", {"forbidden_words": words}, t)

# keywords:letter_frequency
for letter in ("e", "Z", "a"):
    for freq in (1, 5, 12, 13):
        for rel in ("less than", "at least"):
            one("keywords:letter_frequency", {"letter": letter, "let_frequency": freq, "let_relation": rel}, ENGLISH[0])

# language:response_language: every text against its own code and against en/de
for code, text in LANG_TEXTS.items():
    one("language:response_language", {"language": code}, text)
    one("language:response_language", {"language": code}, text + " " + text)
    other = "de" if code == "en" else "en"
    one("language:response_language", {"language": other}, text)
for t in ENGLISH:
    one("language:response_language", {"language": "en"}, t)
for code, texts in MORE_TEXTS.items():
    for t in texts:
        one("language:response_language", {"language": code}, t)
        one("language:response_language", {"language": "en" if code != "en" else "fr"}, t)

# length_constraints:number_sentences
for t in ENGLISH:
    for n in (1, 2, 3, 4, 5):
        one("length_constraints:number_sentences", {"num_sentences": n, "relation": "less than" if n % 2 else "at least"}, t)

# length_constraints:number_paragraphs
PARAS = [
    "First part.\n***\nSecond part.\n***\nThird part.",
    "***\nOnly one part here\n***",
    "One.***Two.***Three.",
    "One\n***\n\n***\nThree",
    "A * * * B",
    "Start\n\n*** \n Middle \n ***\n\nEnd ***",
    "No dividers at all.",
]
for t in PARAS:
    for n in (1, 2, 3):
        one("length_constraints:number_paragraphs", {"num_paragraphs": n}, t)

# length_constraints:number_words, with exact boundaries
for t in ENGLISH[:10] + [LANG_TEXTS["hi"], LANG_TEXTS["ja"], "snake_case and e-mail don't count the same; 3.14 is two."]:
    words = len(__import__("re").findall(r"\w+", t))
    for n in (words - 1, words, words + 1):
        for rel in ("less than", "at least"):
            one("length_constraints:number_words", {"num_words": n, "relation": rel}, t)

# length_constraints:nth_paragraph_first_word
NTH = [
    "Rivers shape valleys.\n\nMountains rise slowly.\n\nOceans cover the earth.",
    "\"Mountains,\" she said.\n\n'mountains' again\n\nEnd.",
    "Intro\n\n\n\nMountains! They rise.\n\nFinal words",
    "Mountains, rivers and seas.\n\nmountains.again",
    "  \n\nMountains first\n\nsecond",
]
for t in NTH:
    for n, nth in ((2, 2), (3, 2), (3, 1), (2, 1)):
        one("length_constraints:nth_paragraph_first_word", {"num_paragraphs": n, "nth_paragraph": nth, "first_word": "mountains"}, t)

# detectable_content:number_placeholders
PH = ["Dear [name], your order [order id] ships to [address].", "No placeholders here.", "[a][b] [c\n] [d]", "[[nested]] and []"]
for t in PH:
    for n in (1, 2, 3, 4):
        one("detectable_content:number_placeholders", {"num_placeholders": n}, t)

# detectable_content:postscript
PS = [
    "Main text.\nP.S. Remember the milk.",
    "Main text.\nP. S. spaced out",
    "Main text.\np.p.s extra note",
    "Main text.\nP.P.S. another",
    "Main text with no postscript.",
    "Note: this is the end.\n  Note: again",
    "PS without dots",
]
for t in PS:
    for marker in ("P.S.", "P.P.S", "Note:", "PS"):
        one("detectable_content:postscript", {"postscript_marker": marker}, t)

# detectable_format:number_bullet_lists
BUL = [
    "* one\n* two\n* three",
    "- one\n- two",
    "* one\n  * nested\n- dash\n**bold line**",
    "*\nfollowing line\n* real",
    "Intro\n\n* a\n\n* b\n-c",
    "No bullets.",
    "*emphasis* at start\n* bullet",
]
for t in BUL:
    for n in (1, 2, 3, 4):
        one("detectable_format:number_bullet_lists", {"num_bullets": n}, t)

# detectable_format:constrained_response
for t in ("My answer is yes.", "I think... My answer is no. Definitely.", "my answer is maybe.", "My answer is Yes.", "  My answer is maybe.  "):
    one("detectable_format:constrained_response", {}, t)

# detectable_format:number_highlighted_sections
HL = ["*one* and *two*", "**bold** and *it*", "* * and ** **", "***triple***", "*multi\nline*", "Plain text."]
for t in HL:
    for n in (1, 2, 3):
        one("detectable_format:number_highlighted_sections", {"num_highlights": n}, t)

# detectable_format:multiple_sections
SEC = [
    "SECTION 1\nIntro\nSECTION 2\nBody",
    "Section 1: a\nSection 2: b\nSection 3: c",
    "section 1 lower\nsection 2 lower",
    "PARAGRAPH 1 text PARAGRAPH 2 text",
    "SECTION one\nSECTION two",
    "SECTION 10 only",
]
for t in SEC:
    for spl, n in (("SECTION", 2), ("Section", 3), ("PARAGRAPH", 2), ("SECTION", 1), (" Section ", 2)):
        one("detectable_format:multiple_sections", {"section_spliter": spl, "num_sections": n}, t)

# detectable_format:json_format
JS = [
    '{"a": 1, "b": [true, null]}',
    '```json\n{"a": 1}\n```',
    '```JSON\n[1, 2]\n```',
    '```\n{"a": NaN}\n```',
    "{'a': 1}",
    '{"a": 1,}',
    'Here is JSON: {"a": 1}',
    '"just a string"',
    '```Json {"k": "v"} ```',
    '{"a": "tab\there"}',
]
for t in JS:
    one("detectable_format:json_format", {}, t)
    one("detectable_format:json_format", {}, "Sure!\n" + t)

# detectable_format:title
for t in ("<<My Title>>\nBody", "<< >> body", "No title", "<<multi\nline>>", "Text <<inner title>> more", "<<>>"):
    one("detectable_format:title", {}, t)

# combination:two_responses
for t in ("First answer.\n******\nSecond answer.", "Same.\n******\nSame.", "A\n******\n\n******\nB", "******\nA\n******\nB\n******", "Only one"):
    one("combination:two_responses", {}, t)

# combination:repeat_prompt
P = "Write a poem about the sea. Use at least 3 lines."
for t in (P + "\nThe sea is wide...", "  write a poem about the sea. use at least 3 lines. Here it is.", "Sure! " + P, P[:-1]):
    one("combination:repeat_prompt", {"prompt_to_repeat": P}, t, prompt=P + " First repeat the request.")

# startend:end_checker
for t in ("That is all. Any other questions?", "That is all. Any other questions?\"", "Any other questions? Yes.", "  any other questions?  \n", "\"Any other questions?\""):
    for phrase in ("Any other questions?", "Is there anything else I can help with?"):
        one("startend:end_checker", {"end_phrase": phrase}, t)

# change_case:capital_word_frequency
CAPS = ENGLISH + UPPER[:3] + ["THE U.S.A. AND U.K. DON'T AGREE. WE'LL SEE!", "I am I. A B C d e."]
for t in CAPS:
    for n in (1, 2, 4, 8):
        one("change_case:capital_word_frequency", {"capital_frequency": n, "capital_relation": "at least" if n % 4 else "less than"}, t)

# change_case:english_capital / english_lowercase
for t in UPPER + LOWER + ENGLISH[:3]:
    one("change_case:english_capital", {}, t)
    one("change_case:english_lowercase", {}, t)

# punctuation:no_comma and startend:quotation
for t in ENGLISH[:6] + LOWER[:2] + ["\"Quoted whole answer.\"", "\"", "  \"spaced\"  ", "\"open only"]:
    one("punctuation:no_comma", {}, t)
    one("startend:quotation", {}, t)

# several instructions at once, with loose-only passes
for wrap in LOOSE_WRAPS:
    one("punctuation:no_comma", {}, wrap("no commas in this text at all"))
    add(
        ["change_case:english_lowercase", "punctuation:no_comma", "length_constraints:number_words"],
        [{}, {}, {"num_words": 8, "relation": "less than"}],
        wrap("just a few lowercase words here"),
    )
    add(
        ["detectable_format:title", "startend:quotation", "detectable_format:number_bullet_lists"],
        [{}, {}, {"num_bullets": 2}],
        wrap('"<<Title>>\n* one\n* two"'),
    )
    add(
        ["detectable_format:json_format", "keywords:existence"],
        [{}, {"keywords": ["alpha"]}],
        wrap('{"alpha": 1}'),
    )
    add(
        ["startend:end_checker", "detectable_content:postscript"],
        [{"end_phrase": "Peace out."}, {"postscript_marker": "P.S."}],
        wrap("Body text.\nP.S. Peace out."),
    )
    add(
        ["length_constraints:number_sentences", "change_case:capital_word_frequency"],
        [{"num_sentences": 3, "relation": "less than"}, {"capital_frequency": 2, "capital_relation": "at least"}],
        wrap("THIS IS short. Very short."),
    )

for r in rows:
    print(json.dumps(r, ensure_ascii=False))
