/**
 * The English entries: 13 support and commerce topics, four entries each, so that entries of one
 * topic compete for every question. Each entry's facts are [sentence, key span, question]: the
 * first planted near the start, the second in the middle, the third near the end. The questions
 * paraphrase the facts and share at most two content words with them (checked by generate.ts).
 */
import { entriesIn, type EntrySpec } from './types';

const entry = entriesIn('en');

export const ENGLISH_ENTRIES: EntrySpec[] = [
  // --- shipping -------------------------------------------------------------------------------
  entry(
    'en-standard-delivery',
    'shipping',
    'Standard delivery within the country',
    'standard delivery',
    'How ordinary parcels travel from our warehouse to addresses in the country, and what it costs.',
    [
      [
        'Parcels sent by standard delivery normally reach mainland addresses three to five working days after they leave the warehouse.',
        'three to five working days after they leave the warehouse',
        'How long does a regular order take to arrive?',
      ],
      [
        'Orders placed before 2 pm on a weekday are handed to the carrier on the same day.',
        'before 2 pm on a weekday are handed to the carrier on the same day',
        "What's the cut-off time for my purchase to be dispatched today?",
      ],
      [
        'Standard delivery costs nothing once the basket total reaches 49 euros.',
        'costs nothing once the basket total reaches 49 euros',
        'How much do I have to spend to avoid paying for postage?',
      ],
    ],
  ),
  entry(
    'en-express-shipping',
    'shipping',
    'Express and next-day shipping',
    'express shipping',
    'The faster delivery options, when they apply and what happens when a promise is missed.',
    [
      [
        'Express parcels ordered by 11 am are delivered the next working day, Saturdays excluded.',
        'ordered by 11 am are delivered the next working day',
        'If I need something tomorrow, by when must I buy it?',
      ],
      [
        'The express surcharge is refunded automatically when the courier misses the promised delivery date.',
        'refunded automatically when the courier misses the promised delivery date',
        'Do I get the extra fee back if the fast parcel turns up late?',
      ],
      [
        'Express shipping is not available for addresses on the North Sea islands.',
        'not available for addresses on the North Sea islands',
        'Can I get rush delivery when I live on an island off the coast?',
      ],
    ],
  ),
  entry(
    'en-international-shipping',
    'shipping',
    'International shipping and customs',
    'international shipping',
    'Sending orders abroad: destinations, duties and the paperwork that travels with a parcel.',
    [
      [
        'We ship to 31 countries, covering the whole European Union plus Norway, Switzerland and the United Kingdom.',
        'covering the whole European Union plus Norway, Switzerland and the United Kingdom',
        'Which nations outside the EU can you send orders to?',
      ],
      [
        'For parcels to Switzerland and the United Kingdom, import duties and taxes are paid by the recipient on delivery.',
        'import duties and taxes are paid by the recipient on delivery',
        'Who pays customs fees when I order to a Swiss address?',
      ],
      [
        'Parcels leaving the EU need a commercial invoice, which we print and attach to the box ourselves.',
        'commercial invoice, which we print and attach to the box ourselves',
        'Do I have to fill in any export paperwork for an overseas order?',
      ],
    ],
  ),
  entry(
    'en-bulky-delivery',
    'shipping',
    'Delivery of bulky items and furniture',
    'bulky item delivery',
    'How large and heavy goods such as sofas, wardrobes and appliances reach your home.',
    [
      [
        'Items heavier than 31.5 kilograms travel by freight forwarder instead of parcel service.',
        'heavier than 31.5 kilograms travel by freight forwarder',
        'What happens if the thing I order is too heavy for a normal courier?',
      ],
      [
        'The forwarder phones you one day in advance to agree a four-hour delivery window.',
        'phones you one day in advance to agree a four-hour delivery window',
        'How will I know when the sofa is coming?',
      ],
      [
        'Carrying the goods into a room of your choice and taking away the packaging costs an extra 39 euros.',
        'taking away the packaging costs an extra 39 euros',
        'Can the drivers bring the wardrobe upstairs and remove the cardboard, and what does it cost?',
      ],
    ],
  ),
  // --- returns --------------------------------------------------------------------------------
  entry(
    'en-returns-policy',
    'returns',
    'Returns policy',
    'returns',
    'Sending items back: the general rules, refunds and the products that are treated differently.',
    [
      [
        'You can send back most items within 30 days of receiving them, without giving a reason.',
        'within 30 days of receiving them, without giving a reason',
        'How long do I have to change my mind about a purchase?',
      ],
      [
        'Refunds go back to the original payment method within five business days after the parcel is checked in at our warehouse.',
        'original payment method within five business days after the parcel is checked in',
        "When will I see my money again after I've posted something back?",
      ],
      [
        'Swimwear and underwear can only be returned with the hygiene seal intact.',
        'only be returned with the hygiene seal intact',
        "Can I give back a bikini I've tried on?",
      ],
    ],
  ),
  entry(
    'en-electronics-returns',
    'returns',
    'Returning electronics',
    'electronics returns',
    'What to do before sending back a laptop, phone, console or other device.',
    [
      [
        'Laptops, phones and tablets must be reset to factory settings and signed out of all accounts before you pack them.',
        'reset to factory settings and signed out of all accounts',
        'Do I need to wipe my tablet before I post it back?',
      ],
      [
        'Opened software and video games can be returned only if the disc or download code is unused.',
        'only if the disc or download code is unused',
        'I unwrapped a console title I no longer want, can I still give it back?',
      ],
      [
        'A device returned with missing accessories is refunded minus the value of the missing parts.',
        'refunded minus the value of the missing parts',
        "What if I've lost the charger of the headphones I'm sending back?",
      ],
    ],
  ),
  entry(
    'en-sale-items',
    'returns',
    'Sale and clearance items',
    'sale items',
    'Returns and price changes for reduced goods and the clearance outlet.',
    [
      [
        'Items bought in the clearance outlet can be returned within 14 days instead of the usual period.',
        'clearance outlet can be returned within 14 days',
        'Is the deadline shorter for bargains from the outlet section?',
      ],
      [
        'If the price of an item drops within seven days of your order, customer service refunds the difference on request.',
        'customer service refunds the difference on request',
        'The thing I bought got cheaper last week, can I get some money back?',
      ],
      [
        'Items labelled as final sale cannot be returned or exchanged unless they arrive faulty.',
        'labelled as final sale cannot be returned or exchanged unless they arrive faulty',
        "Are last-chance reduced products refundable if I simply don't like them?",
      ],
    ],
  ),
  entry(
    'en-exchanges',
    'returns',
    'Exchanges for size and colour',
    'exchanges',
    'Swapping an item for another size or colour instead of returning it.',
    [
      [
        'An exchange for a different size is shipped as soon as the returned item is scanned by the carrier, not when it reaches us.',
        'shipped as soon as the returned item is scanned by the carrier',
        'Do I have to wait for you to receive my shoes before the bigger pair is sent?',
      ],
      [
        'Each order can be exchanged free of charge once; further exchanges are treated as a new purchase.',
        'exchanged free of charge once; further exchanges are treated as a new purchase',
        "What if the replacement jacket doesn't fit either?",
      ],
      [
        'Exchanges are only possible for the same product in another size or colour; ' +
          'for a different product please return it and order again.',
        'for a different product please return it and order again',
        'Can I swap my jeans for a completely different item?',
      ],
    ],
  ),
  // --- payments -------------------------------------------------------------------------------
  entry(
    'en-card-payments',
    'payments',
    'Paying by card',
    'card payments',
    'Which cards we take, when a card is charged and how reservations are released.',
    [
      [
        'We accept Visa, Mastercard and American Express, but not Diners Club or prepaid cards without 3-D Secure.',
        'not Diners Club or prepaid cards without 3-D Secure',
        "Which credit cards won't work at checkout?",
      ],
      [
        'The amount is only reserved when you order and is charged to your card when the parcel is dispatched.',
        'charged to your card when the parcel is dispatched',
        'At what point is the money actually taken from my account?',
      ],
      [
        'A reservation for a cancelled order is released by your bank within up to ten days, depending on the card issuer.',
        'released by your bank within up to ten days',
        'I cancelled but the pending amount still shows on my statement, how long will it stay?',
      ],
    ],
  ),
  entry(
    'en-pay-later',
    'payments',
    'Buy now, pay later and instalments',
    'pay later',
    'Deferred payment and instalment plans: terms, limits and reminders.',
    [
      [
        'With pay later, the invoice is due 30 days after dispatch and no interest is charged.',
        'invoice is due 30 days after dispatch and no interest is charged',
        'How long can I wait before settling a deferred purchase?',
      ],
      [
        'Instalment plans are offered for baskets between 200 and 5,000 euros, spread over 6, 12 or 24 months.',
        'baskets between 200 and 5,000 euros, spread over 6, 12 or 24 months',
        "What's the minimum spend to split my payment into monthly chunks?",
      ],
      [
        'A missed instalment triggers a reminder fee of 5 euros after a 14-day grace period.',
        'reminder fee of 5 euros after a 14-day grace period',
        "What happens if I'm late with one of my monthly repayments?",
      ],
    ],
  ),
  entry(
    'en-bank-transfer',
    'payments',
    'Bank transfer and prepayment',
    'bank transfer',
    'Paying in advance by bank transfer: references, deadlines and the prepayment discount.',
    [
      [
        'Orders paid by bank transfer are held for seven days and cancelled automatically if the money has not arrived.',
        'held for seven days and cancelled automatically if the money has not arrived',
        'What if my wire payment takes too long to come through?',
      ],
      [
        'Always quote the order number as the payment reference, otherwise the transfer cannot be matched.',
        'quote the order number as the payment reference',
        'What should I write in the purpose field when I wire the money?',
      ],
      [
        'Prepayment customers receive a 2 percent discount on the goods value.',
        'receive a 2 percent discount on the goods value',
        'Is there a price reduction for paying in advance?',
      ],
    ],
  ),
  entry(
    'en-digital-wallets',
    'payments',
    'Digital wallets: PayPal, Apple Pay and Google Pay',
    'digital wallets',
    'Paying with a wallet app: where each one is offered, refunds and limitations.',
    [
      [
        'Apple Pay is offered only in Safari and in our iOS app, not in other browsers.',
        'only in Safari and in our iOS app, not in other browsers',
        "Why can't I see the Apple option when shopping with Chrome?",
      ],
      [
        'Refunds for PayPal payments appear in your PayPal account, usually within 24 hours.',
        'appear in your PayPal account, usually within 24 hours',
        'Where does the money go back to if I paid with PayPal?',
      ],
      [
        'Wallet payments cannot be combined with a gift card in the same order.',
        'cannot be combined with a gift card in the same order',
        'Can I pay part with a voucher and the rest through Google Pay?',
      ],
    ],
  ),
  // --- wine delivery --------------------------------------------------------------------------
  entry(
    'en-wine-delivery',
    'wine',
    'Wine delivery and age verification',
    'wine delivery',
    'How wine orders are handed over, and the checks the courier has to make.',
    [
      [
        'Recipients of wine deliveries must present a government-issued photo identification to the courier.',
        'present a government-issued photo identification to the courier',
        'Do I need ID when receiving wine?',
      ],
      [
        'Wine parcels are never left with neighbours or in a safe place; if nobody aged 18 or over is home, they go back to the depot.',
        'never left with neighbours or in a safe place',
        "Can the driver drop my bottles next door if I'm out?",
      ],
      [
        'Wine cannot be delivered to packing stations or parcel lockers.',
        'cannot be delivered to packing stations or parcel lockers',
        'Is it possible to send a case of red to a pickup box?',
      ],
    ],
  ),
  entry(
    'en-wine-club',
    'wine',
    'Wine subscription club',
    'wine club',
    'The wine club subscription: what arrives, how often, and how to manage deliveries.',
    [
      [
        'Club members receive a case of six bottles every eight weeks, chosen by our sommelier.',
        'case of six bottles every eight weeks',
        'How often does the wine club box come and how many are in it?',
      ],
      [
        'A delivery can be skipped in the member area up to five days before it is packed.',
        'skipped in the member area up to five days before it is packed',
        "I'm on holiday next month, can I pause one shipment?",
      ],
      [
        'Members can swap any bottle they dislike for a free replacement in their next case.',
        'swap any bottle they dislike for a free replacement',
        "What if I didn't enjoy one of the wines I got?",
      ],
    ],
  ),
  entry(
    'en-wine-weather',
    'wine',
    'Wine shipping in hot and cold weather',
    'temperature-controlled wine shipping',
    'How wine is protected on its way to you, in summer heat and winter frost.',
    [
      [
        'During heatwaves above 30 °C we pause wine shipments and send them once temperatures drop.',
        'pause wine shipments and send them once temperatures drop',
        'Will my bottles cook in the van during a hot summer?',
      ],
      [
        'Wine is packed in moulded pulp inserts that protect the bottles against breakage and temperature swings.',
        'moulded pulp inserts',
        'What kind of packaging keeps the bottles safe in transit?',
      ],
      [
        'A bottle that arrives broken is replaced free of charge if you send us a photo within 48 hours.',
        'send us a photo within 48 hours',
        'One of my reds was smashed when the box arrived, what should I do?',
      ],
    ],
  ),
  entry(
    'en-wine-gifts',
    'wine',
    'Sending wine as a gift',
    'wine gifts',
    'Ordering wine for someone else: messages, delivery notes and dates.',
    [
      [
        'Gift orders of wine can carry a handwritten card of up to 300 characters.',
        'handwritten card of up to 300 characters',
        'How long can my personal message be when I send bottles to a friend?',
      ],
      [
        'Prices are never shown on the delivery note of a gift order.',
        'never shown on the delivery note of a gift order',
        'Will the person receiving the present see how much I paid?',
      ],
      [
        'A wine gift can be scheduled for a specific delivery date up to three months ahead.',
        'scheduled for a specific delivery date up to three months ahead',
        "Can I order a bottle now for my dad's birthday in June?",
      ],
    ],
  ),
  // --- warranty -------------------------------------------------------------------------------
  entry(
    'en-warranty',
    'warranty',
    'Legal guarantee and manufacturer warranty',
    'warranty',
    'The protection every product comes with, what it covers and what it does not.',
    [
      [
        'Every product comes with the two-year legal guarantee, which covers defects that were present at delivery.',
        'two-year legal guarantee, which covers defects that were present at delivery',
        'What protection do I get by law if something I bought breaks?',
      ],
      [
        'In the first twelve months we assume a fault was there from the start, and you do not need to prove it.',
        'we assume a fault was there from the start',
        'Do I have to show the problem was not my fault?',
      ],
      [
        'Damage from drops, liquids or unauthorised repairs is not covered by any guarantee.',
        'Damage from drops, liquids or unauthorised repairs',
        'I spilled coffee on my laptop, will you fix it for free?',
      ],
    ],
  ),
  entry(
    'en-extended-warranty',
    'warranty',
    'Extended warranty plans',
    'extended warranty',
    'Optional protection plans beyond the legal guarantee: when to add them and what they pay for.',
    [
      [
        'An extended warranty can be added up to 60 days after purchase, not only at checkout.',
        'added up to 60 days after purchase',
        'I forgot to buy extra cover when ordering, is it too late?',
      ],
      [
        'The plan includes one accidental damage claim per year, with an excess of 25 euros.',
        'one accidental damage claim per year, with an excess of 25 euros',
        'If I drop my phone, will the protection plan pay for it, and what do I contribute?',
      ],
      [
        'Plans can be cancelled at any time, with a refund for each full month not used.',
        'refund for each full month not used',
        'If I stop the cover early, do I get money back?',
      ],
    ],
  ),
  entry(
    'en-refurbished',
    'warranty',
    'Warranty for refurbished products',
    'refurbished products',
    'What is guaranteed when you buy a refurbished device, and how grading works.',
    [
      [
        'Refurbished devices carry a twelve-month warranty from our own repair centre.',
        'twelve-month warranty from our own repair centre',
        'How long is a second-hand laptop from you protected?',
      ],
      [
        'Batteries in refurbished devices are guaranteed to hold at least 85 percent of their original capacity.',
        'at least 85 percent of their original capacity',
        'How healthy is the battery in a renewed phone?',
      ],
      [
        'Cosmetic marks described in the grading are not a reason for a warranty claim.',
        'Cosmetic marks described in the grading',
        'Can I complain about small scratches on a B-grade tablet?',
      ],
    ],
  ),
  entry(
    'en-warranty-claims',
    'warranty',
    'Making a warranty claim',
    'warranty claims',
    'How to report a faulty product, how repairs are handled and when you get a replacement.',
    [
      [
        'Claims are opened in the order history by choosing the item and describing the fault.',
        'opened in the order history by choosing the item and describing the fault',
        'Where do I start if a product I bought stopped working?',
      ],
      [
        'Repairs take about 15 working days, including both shipping legs.',
        '15 working days, including both shipping legs',
        "How long will I be without my device while it's being fixed?",
      ],
      [
        'If the same fault appears for the third time, you can choose a replacement or your money back instead of another repair.',
        'same fault appears for the third time',
        'My coffee machine keeps breaking after repairs, can I just get a new one?',
      ],
    ],
  ),
  // --- software licences ----------------------------------------------------------------------
  entry(
    'en-licence-activation',
    'software',
    'Activating a software licence',
    'licence activation',
    'Receiving a licence key and activating the software you bought.',
    [
      [
        'The licence key is sent by email within ten minutes of payment and also appears under Downloads in your account.',
        'sent by email within ten minutes of payment',
        'Where do I find the code after buying a program?',
      ],
      [
        'Activation requires an internet connection once; afterwards the software runs offline.',
        'internet connection once; afterwards the software runs offline',
        'Can I use the app on a computer that has no network access?',
      ],
      [
        'A key that shows as already used can be reset by support after you confirm the order number.',
        'reset by support after you confirm the order number',
        'The program says my code was redeemed before, what now?',
      ],
    ],
  ),
  entry(
    'en-licence-transfer',
    'software',
    'Moving a licence to a new computer',
    'licence transfer',
    'How many devices a licence covers, and how to move it from one machine to another.',
    [
      [
        'A single-user licence may be installed on two devices of the same person at the same time.',
        'installed on two devices of the same person at the same time',
        'Can I put the program on both my desktop and my laptop?',
      ],
      [
        'To move the licence, deactivate it on the old machine under Help, then activate it on the new one.',
        'deactivate it on the old machine under Help',
        'I got a new PC, how do I get my software onto it?',
      ],
      [
        'Licences bought for private use cannot be transferred to another person or company.',
        'cannot be transferred to another person or company',
        'Can I sell or give my copy to a friend?',
      ],
    ],
  ),
  entry(
    'en-volume-licences',
    'software',
    'Volume and education licences',
    'volume licences',
    'Licences for teams, schools and universities: pricing, verification and seat management.',
    [
      [
        'Volume pricing starts at five seats and all seats share one expiry date.',
        'starts at five seats and all seats share one expiry date',
        'How many users do I need for business bulk pricing?',
      ],
      [
        'Schools and universities get 40 percent off after verifying their status with an official letterhead or domain.',
        '40 percent off after verifying their status',
        'Is there a discount for educational institutions?',
      ],
      [
        'Seats can be reassigned between employees in the admin console without contacting us.',
        'reassigned between employees in the admin console',
        'When a colleague leaves, can someone else take over their place?',
      ],
    ],
  ),
  entry(
    'en-software-subscriptions',
    'software',
    'Subscription renewal and cancellation',
    'software subscriptions',
    'How software subscriptions renew, how to cancel and what happens to your files afterwards.',
    [
      [
        'Annual subscriptions renew automatically, and we email a reminder 30 days before the renewal date.',
        'email a reminder 30 days before the renewal date',
        'Will I be warned before my yearly plan charges me again?',
      ],
      [
        'If you cancel within 14 days of a renewal, the full renewal fee is refunded.',
        'within 14 days of a renewal, the full renewal fee is refunded',
        'I forgot to stop auto-renew and got billed, can I get it back?',
      ],
      [
        'After a subscription ends, files created with the software remain readable in the free viewer.',
        'remain readable in the free viewer',
        'Will I lose access to my documents if I stop paying?',
      ],
    ],
  ),
  // --- loyalty programme ----------------------------------------------------------------------
  entry(
    'en-loyalty-earning',
    'loyalty',
    'Earning loyalty points',
    'loyalty points',
    'How points are collected in the loyalty programme and when they show up.',
    [
      [
        'Members collect one point for every euro spent, counted on the value after discounts.',
        'one point for every euro spent, counted on the value after discounts',
        'How many rewards do I earn per purchase amount?',
      ],
      [
        'Points are credited 30 days after delivery, once the return period has passed.',
        'credited 30 days after delivery, once the return period has passed',
        "Why haven't my rewards from last week's order appeared yet?",
      ],
      [
        'Shipping costs, gift card purchases and deposit fees do not earn points.',
        'gift card purchases and deposit fees do not earn',
        'Do I get rewards for buying vouchers?',
      ],
    ],
  ),
  entry(
    'en-loyalty-redeeming',
    'loyalty',
    'Redeeming points',
    'points redemption',
    'Using loyalty points at checkout: their value, the limits and what happens on returns.',
    [
      [
        '100 points are worth 1 euro at checkout, and you can redeem from 500 points upwards.',
        '100 points are worth 1 euro at checkout, and you can redeem from 500 points upwards',
        "What's the cash value of my rewards balance?",
      ],
      [
        'Points can cover no more than half of the basket value.',
        'cover no more than half of the basket value',
        'Can I use my rewards to get something completely free?',
      ],
      [
        'Points used on an order that is later returned are credited back to your account.',
        'used on an order that is later returned are credited back',
        'If I send back something I bought with rewards, do I lose them?',
      ],
    ],
  ),
  entry(
    'en-membership-tiers',
    'loyalty',
    'Membership tiers',
    'membership tiers',
    'The status levels of the loyalty programme, how to reach them and what they bring.',
    [
      [
        'Gold status is reached with 1,500 euros of purchases in a calendar year.',
        'Gold status is reached with 1,500 euros of purchases in a calendar year',
        'How much must I spend annually to move up to the top level?',
      ],
      [
        'Gold members get free express shipping on every order.',
        'Gold members get free express shipping on every order',
        'What delivery perks come with the highest tier?',
      ],
      [
        'Your tier is kept for the whole following year even if you spend less.',
        'kept for the whole following year even if you spend less',
        'Will I be downgraded straight away if I buy less?',
      ],
    ],
  ),
  entry(
    'en-points-expiry',
    'loyalty',
    'Points expiry and leaving the programme',
    'points expiry',
    'When loyalty points lapse, how to keep them, and what happens when you leave.',
    [
      [
        'Points expire 24 months after the end of the month in which they were earned.',
        'expire 24 months after the end of the month in which they were earned',
        'Do my rewards run out eventually?',
      ],
      [
        'Any purchase resets the expiry clock for all points in the account.',
        'Any purchase resets the expiry clock',
        'How can I keep my rewards from lapsing?',
      ],
      [
        'When you leave the programme, unused points are forfeited and cannot be paid out.',
        'unused points are forfeited and cannot be paid out',
        'If I quit the rewards scheme, can I get cash for my balance?',
      ],
    ],
  ),
  // --- store pickup ---------------------------------------------------------------------------
  entry(
    'en-click-and-collect',
    'pickup',
    'Click and collect',
    'click and collect',
    'Ordering online and collecting in a store: timing, holding period and what to bring.',
    [
      [
        'Click and collect orders are usually ready two hours after you order, during store opening hours.',
        'ready two hours after you order',
        'How soon can I grab my online purchase from the shop?',
      ],
      [
        'Orders wait at the service desk for seven days before they are returned to stock and refunded.',
        'wait at the service desk for seven days',
        "How long will the store hold my items if I can't come right away?",
      ],
      [
        'Bring the pickup code from your confirmation email; a photo ID alone is not enough.',
        'pickup code from your confirmation email',
        'What do I need to show when I arrive to fetch my order?',
      ],
    ],
  ),
  entry(
    'en-parcel-lockers',
    'pickup',
    'Parcel lockers',
    'pickup lockers',
    'Having an order delivered to a locker: sizes, codes and what to do when a locker fails.',
    [
      [
        'Locker pickup is available for parcels up to 60 x 40 x 40 cm and 20 kilograms.',
        'up to 60 x 40 x 40 cm and 20 kilograms',
        'How big can a package be for the collection boxes?',
      ],
      [
        'Your locker code stays valid for 72 hours after the delivery notification.',
        'stays valid for 72 hours after the delivery notification',
        'How long do I have to empty the box before the parcel is sent back?',
      ],
      [
        'Lockers can be opened with the app via Bluetooth if the touchscreen is out of order.',
        'opened with the app via Bluetooth if the touchscreen is out of order',
        'The screen on the pickup station is broken, how do I get my package?',
      ],
    ],
  ),
  entry(
    'en-curbside-pickup',
    'pickup',
    'Curbside pickup',
    'curbside pickup',
    'Collecting an order without leaving your car: where it is offered and how it works.',
    [
      [
        'Curbside pickup is offered at stores with a marked waiting bay in the car park.',
        'stores with a marked waiting bay in the car park',
        'Which branches let me collect without leaving my vehicle?',
      ],
      [
        'Press the arrival button in the app and a colleague brings the order to your car within ten minutes.',
        'brings the order to your car within ten minutes',
        "How long will I wait in the vehicle once I've checked in?",
      ],
      [
        'Curbside pickup cannot be used for orders that need to be paid on collection.',
        'cannot be used for orders that need to be paid on collection',
        'Can I settle the bill at the car when I collect?',
      ],
    ],
  ),
  entry(
    'en-collection-by-others',
    'pickup',
    'Collection by someone else',
    'collection by someone else',
    'Letting another person collect your order, and the limits that apply.',
    [
      [
        'You can name a different collector at checkout or later in the order details.',
        'name a different collector at checkout or later in the order details',
        'Can my partner pick up the parcel for me?',
      ],
      [
        'Orders with a value above 1,000 euros can only be collected by the buyer in person.',
        'value above 1,000 euros can only be collected by the buyer in person',
        'Can a friend fetch an expensive TV I paid for?',
      ],
      [
        'Collectors must be at least 16 years old.',
        'Collectors must be at least 16 years old',
        'Can I send my teenage son to get the package?',
      ],
    ],
  ),
  // --- gift cards -----------------------------------------------------------------------------
  entry(
    'en-gift-cards',
    'giftcards',
    'Buying gift cards',
    'gift cards',
    'The gift cards we sell, how they are paid for and how they are sent.',
    [
      [
        'Gift cards are available from 10 to 500 euros in any whole-euro amount.',
        'from 10 to 500 euros in any whole-euro amount',
        'What values can vouchers be bought in?',
      ],
      [
        'Gift cards cannot be paid for with another gift card or with loyalty points.',
        'cannot be paid for with another gift card or with loyalty points',
        'Can I use my rewards balance to buy a present voucher?',
      ],
      [
        'Physical gift cards are posted free of charge in a greeting card envelope.',
        'posted free of charge in a greeting card envelope',
        'Does it cost extra to have a plastic voucher mailed?',
      ],
    ],
  ),
  entry(
    'en-gift-card-balance',
    'giftcards',
    'Gift card balance and validity',
    'gift card balance',
    'How long a gift card is valid, how to check what is left and what cannot be done with it.',
    [
      [
        'Gift cards are valid for three years from the end of the year they were bought.',
        'valid for three years from the end of the year they were bought',
        'When does my present voucher run out?',
      ],
      [
        'The remaining balance can be checked on the gift card page by entering the card number and PIN.',
        'entering the card number and PIN',
        'How do I see how much is left on my voucher?',
      ],
      [
        'Gift card balances are not paid out in cash, except where the law requires it.',
        'not paid out in cash, except where the law requires it',
        'Can I exchange a voucher for money?',
      ],
    ],
  ),
  entry(
    'en-corporate-gift-cards',
    'giftcards',
    'Corporate gift cards',
    'corporate gift cards',
    'Gift cards for companies: branding, payment and activation.',
    [
      [
        'Companies ordering 25 or more gift cards can have them printed with their own logo.',
        'printed with their own logo',
        'Can we brand vouchers with our company design for staff?',
      ],
      [
        'Corporate orders are paid by invoice with 14-day payment terms after a credit check.',
        'paid by invoice with 14-day payment terms after a credit check',
        'Do businesses have to pay upfront for bulk vouchers?',
      ],
      [
        'Corporate gift cards are activated only after the invoice has been paid.',
        'activated only after the invoice has been paid',
        "Why don't the vouchers our employees received work yet?",
      ],
    ],
  ),
  entry(
    'en-e-gift-cards',
    'giftcards',
    'Lost or stolen e-gift cards',
    'e-gift cards',
    'Digital gift cards: delivery by email, resending and blocking.',
    [
      [
        'E-gift cards are delivered by email within 15 minutes, or at a date and time the buyer chooses.',
        'delivered by email within 15 minutes',
        'When does the person get a digital voucher after I buy it?',
      ],
      [
        'A lost e-gift card can be sent again to the recipient from the order history of the buyer.',
        'sent again to the recipient from the order history',
        'My friend deleted the message with the voucher, can you resend it?',
      ],
      [
        'We can block an unused card for you if it was stolen, and issue a new one with the same balance.',
        'block an unused card for you if it was stolen',
        'Someone took my voucher before I spent it, can you cancel it?',
      ],
    ],
  ),
  // --- B2B invoices ---------------------------------------------------------------------------
  entry(
    'en-b2b-payment-terms',
    'b2b',
    'Payment terms for business customers',
    'business invoices',
    'Buying on account as a business: due dates, credit limits and overdue invoices.',
    [
      [
        'Business invoices are due 30 days net from the invoice date.',
        'due 30 days net from the invoice date',
        'How long does my firm have to settle your bills?',
      ],
      [
        'The credit limit for new business accounts is 5,000 euros and is reviewed after six months.',
        'credit limit for new business accounts is 5,000 euros',
        'How much can a new company buy on account at first?',
      ],
      [
        'Overdue invoices block further orders on account until the balance is settled.',
        'block further orders on account until the balance is settled',
        "Why can't we buy on credit any more after missing a payment deadline?",
      ],
    ],
  ),
  entry(
    'en-vat-exemption',
    'b2b',
    'VAT and tax exemption',
    'VAT exemption',
    'Invoices without VAT for businesses in other EU countries, and exemptions for charities.',
    [
      [
        'EU businesses outside Germany are invoiced without VAT when they provide a valid VAT identification number.',
        'invoiced without VAT when they provide a valid VAT identification number',
        'Our company is in France, can we buy tax-free?',
      ],
      [
        'VAT numbers are checked against the EU VIES database before each order is accepted.',
        'checked against the EU VIES database',
        'How do you confirm our tax ID is real?',
      ],
      [
        'Charities with a tax exemption certificate must upload it once in the business account settings.',
        'upload it once in the business account settings',
        'Where do non-profits send proof of their exempt status?',
      ],
    ],
  ),
  entry(
    'en-invoice-corrections',
    'b2b',
    'Invoice corrections and credit notes',
    'invoice corrections',
    'Fixing mistakes on invoices, and how credit notes are settled.',
    [
      [
        'An issued invoice cannot be edited; we cancel it with a credit note and issue a corrected one.',
        'cancel it with a credit note and issue a corrected one',
        'The billing address on our bill is wrong, can you just change it?',
      ],
      [
        'Correction requests must reach us within 90 days of the invoice date.',
        'within 90 days of the invoice date',
        'Is there a deadline for asking to fix a mistake on a bill?',
      ],
      [
        'Credit notes are offset against the next open invoice unless you ask for a bank refund.',
        'offset against the next open invoice unless you ask for a bank refund',
        'Do we get money back for a credited amount, or is it deducted from later bills?',
      ],
    ],
  ),
  entry(
    'en-purchase-orders',
    'b2b',
    'Purchase orders and e-invoicing',
    'purchase orders',
    'Purchase order numbers, electronic invoice formats and collective invoices.',
    [
      [
        'Your purchase order number can be entered at checkout and is printed on the invoice.',
        'entered at checkout and is printed on the invoice',
        'Where can I add our internal PO reference so it appears on the bill?',
      ],
      [
        'Invoices can be delivered as XRechnung or ZUGFeRD for public sector customers.',
        'XRechnung or ZUGFeRD',
        'Do you support electronic invoice formats for government agencies?',
      ],
      [
        'A collective invoice for all orders of a month can be activated in the business account.',
        'collective invoice for all orders of a month',
        'Can we get one bill per month instead of one per delivery?',
      ],
    ],
  ),
  // --- orders ---------------------------------------------------------------------------------
  entry(
    'en-order-cancellation',
    'orders',
    'Cancelling an order',
    'order cancellation',
    'Until when an order can be cancelled, and what to do once it has shipped.',
    [
      [
        'An order can be cancelled in your account until it has the status In preparation.',
        'until it has the status In preparation',
        'Up to what point can I still call off my purchase?',
      ],
      [
        'If the parcel has already left, refuse delivery or send it back as a normal return.',
        'refuse delivery or send it back as a normal return',
        "It's too late to stop the shipment, what are my options?",
      ],
      [
        'Pre-orders can be cancelled free of charge at any time until the release date.',
        'Pre-orders can be cancelled free of charge at any time until the release date',
        "Can I back out of a reservation for a game that isn't out yet?",
      ],
    ],
  ),
  entry(
    'en-address-changes',
    'orders',
    'Changing the delivery address',
    'address changes',
    'Correcting or changing where an order goes, before and after it ships.',
    [
      [
        'The delivery address can be changed only before the shipping label has been printed.',
        'only before the shipping label has been printed',
        'I moved house after ordering, until when can I update where it goes?',
      ],
      [
        'Once a parcel is in transit, only the tracking page of the carrier can redirect it.',
        'only the tracking page of the carrier can redirect it',
        'My box is already on its way, how can I send it somewhere else?',
      ],
      [
        'For security reasons, the address of orders paid on invoice cannot be changed after ordering.',
        'address of orders paid on invoice cannot be changed',
        "Why won't the system let me edit the destination on my buy-now-pay-later purchase?",
      ],
    ],
  ),
  entry(
    'en-combining-orders',
    'orders',
    'Adding items and combining orders',
    'combining orders',
    'Adding to an order that was already placed, and how separate orders are packed together.',
    [
      [
        'Items cannot be added to an order after it has been placed; please place a second order.',
        'cannot be added to an order after it has been placed',
        'I forgot something, can I include it in my existing purchase?',
      ],
      [
        'Orders placed on the same day to the same address are packed together automatically when possible.',
        'packed together automatically when possible',
        'Will my two purchases from this morning arrive in one box?',
      ],
      [
        'Shipping fees for a combined delivery are refunded to the second order automatically.',
        'refunded to the second order automatically',
        'Do I pay postage twice if you send both in one parcel?',
      ],
    ],
  ),
  entry(
    'en-back-orders',
    'orders',
    'Back-orders and delayed items',
    'back-orders',
    'Items that are not in stock yet: how they are shipped and what you can do while waiting.',
    [
      [
        'Back-ordered items are shipped separately at no extra charge as soon as they arrive in our warehouse.',
        'shipped separately at no extra charge',
        'Do I pay more delivery if part of my order comes later?',
      ],
      [
        'If a delivery date slips by more than 30 days, we ask whether you still want the item.',
        'slips by more than 30 days',
        'What happens if something I bought is delayed for over a month?',
      ],
      [
        'You can swap a back-ordered item for a similar in-stock product through customer service.',
        'swap a back-ordered item for a similar in-stock product',
        "Can I take an alternative that's available now instead of waiting?",
      ],
    ],
  ),
  // --- account and privacy --------------------------------------------------------------------
  entry(
    'en-account-deletion',
    'account',
    'Deleting your customer account',
    'account deletion',
    'Closing your account for good, and the records that have to be kept.',
    [
      [
        'Account deletion is requested under Privacy in your profile and completed within 30 days.',
        'requested under Privacy in your profile and completed within 30 days',
        'How do I get rid of my customer profile for good?',
      ],
      [
        'Invoices must be kept for ten years under tax law, so order records are archived rather than deleted.',
        'archived rather than deleted',
        'Will you really erase all my purchase history?',
      ],
      [
        'An account cannot be deleted while an order, return or instalment plan is still open.',
        'while an order, return or instalment plan is still open',
        'Why am I unable to close my profile right now?',
      ],
    ],
  ),
  entry(
    'en-login',
    'account',
    'Password and login problems',
    'login',
    'Resetting a password, locked accounts and two-factor authentication.',
    [
      [
        'Password reset links are valid for one hour and can be used only once.',
        'valid for one hour and can be used only once',
        "The link to set a new password doesn't work anymore, why?",
      ],
      [
        'After five wrong attempts, the account is locked for 30 minutes.',
        'After five wrong attempts, the account is locked for 30 minutes',
        "I typed my credentials incorrectly a few times and now I can't get in.",
      ],
      [
        'Two-factor authentication can be switched on with any authenticator app under Security.',
        'switched on with any authenticator app under Security',
        'How do I add an extra verification step when signing in?',
      ],
    ],
  ),
  entry(
    'en-data-export',
    'account',
    'Downloading your personal data',
    'data export',
    'Requesting a copy of the data we hold about you, and what it contains.',
    [
      [
        'A copy of your personal data can be requested in the Privacy section and is ready as a ZIP file within 48 hours.',
        'ready as a ZIP file within 48 hours',
        'How can I obtain everything you store about me?',
      ],
      [
        'The download link for a data export expires after seven days.',
        'download link for a data export expires after seven days',
        "How long can I fetch my information package once it's ready?",
      ],
      [
        'The export contains orders, addresses, reviews and newsletter settings, but not payment card numbers.',
        'but not payment card numbers',
        'Will the archive of my information include my credit card details?',
      ],
    ],
  ),
  entry(
    'en-marketing-preferences',
    'account',
    'Newsletter and marketing preferences',
    'marketing preferences',
    'Choosing which messages you receive from us, and how your address is used.',
    [
      [
        'Unsubscribing from the newsletter takes effect within 48 hours.',
        'Unsubscribing from the newsletter takes effect within 48 hours',
        'I opted out of your emails but still got one today, is that normal?',
      ],
      [
        'Personalised recommendations can be turned off separately from the newsletter.',
        'Personalised recommendations can be turned off separately',
        'Can I stop the suggested products based on my browsing but keep the mailing?',
      ],
      [
        'We never pass your email address to other companies for advertising.',
        'never pass your email address to other companies for advertising',
        'Do you sell my contact details to third parties?',
      ],
    ],
  ),
  // --- promotions -----------------------------------------------------------------------------
  entry(
    'en-price-match',
    'promotions',
    'Price match promise',
    'price match',
    'When we match a lower price from another shop, and when we do not.',
    [
      [
        'We match the price of a major online competitor if the identical item is in stock there.',
        'match the price of a major online competitor',
        'Will you beat a cheaper offer I found on another website?',
      ],
      [
        'Marketplace sellers, auction sites and member-only prices are excluded from the price match.',
        'Marketplace sellers, auction sites and member-only prices are excluded',
        'Does an eBay bid count when I ask you to lower the cost?',
      ],
      [
        'A price match must be requested before you order; we do not adjust completed orders.',
        'we do not adjust completed orders',
        'I already bought it, can I still get the lower rival price?',
      ],
    ],
  ),
  entry(
    'en-discount-codes',
    'promotions',
    'Discount codes',
    'discount codes',
    'Using discount codes: how many per order, restrictions and what happens on returns.',
    [
      [
        'Only one discount code can be used per order, and codes cannot be combined with sale prices.',
        'Only one discount code can be used per order',
        'Can I stack two promo codes at checkout?',
      ],
      [
        'Codes from influencer partnerships are valid only for first orders.',
        'valid only for first orders',
        'Why is the creator coupon rejected on my second purchase?',
      ],
      [
        'If you return part of an order, the discount is recalculated on the items you keep.',
        'discount is recalculated on the items you keep',
        'What happens to my promo reduction if I send something back?',
      ],
    ],
  ),
  entry(
    'en-student-discount',
    'promotions',
    'Student and senior discounts',
    'student discount',
    'Reductions for students and senior customers, how to qualify and where they apply.',
    [
      [
        'Students get 10 percent off after verifying their enrolment through our partner once a year.',
        'verifying their enrolment through our partner once a year',
        "How do I prove I'm at university to get the reduction?",
      ],
      [
        'Customers aged 65 and over receive the same discount on Tuesdays in our stores.',
        'aged 65 and over receive the same discount on Tuesdays',
        'Are there special deals for pensioners?',
      ],
      [
        'The student discount does not apply to Apple products or gift cards.',
        'does not apply to Apple products or gift cards',
        'Can I use my university reduction on a MacBook?',
      ],
    ],
  ),
  entry(
    'en-bundle-offers',
    'promotions',
    'Bundles and multi-buy offers',
    'bundle offers',
    'How bundle prices and multi-buy offers are calculated, and what happens on returns.',
    [
      [
        'In a bundle, the discount is spread across all items in proportion to their prices.',
        'spread across all items in proportion to their prices',
        'How is the saving divided between the products of a set deal?',
      ],
      [
        'Returning one item of a bundle removes the bundle price for the items you keep.',
        'removes the bundle price for the items you keep',
        'If I give back one piece of a package deal, do the others cost more?',
      ],
      [
        'Buy three, pay two offers always make the cheapest item free.',
        'always make the cheapest item free',
        'In a 3-for-2 deal, which product do I get at no cost?',
      ],
    ],
  ),
];
