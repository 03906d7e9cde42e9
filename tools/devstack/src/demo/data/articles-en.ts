/* eslint-disable max-len -- demo prose: one paragraph per line, as Markdown keeps it (prettier cannot wrap strings) */
/** Long multi-section articles (English): what passage search is for. */

export const RETURNS_EN = `# Returns, exchanges and refunds

This article is the complete return policy of Trailhead Outfitters for orders placed in the online shop and in our stores. The assistant quotes it to customers; staff use it to decide borderline cases.

## The return window

- You can return most items within **30 days** of delivery (online orders) or of purchase (store purchases).
- During the winter holiday period the window is extended: everything bought between 15 November and 24 December can be returned until 15 January.
- Members of the Trailhead Club get **60 days** for every return.
- The window starts on the day the carrier confirms delivery, not on the order date.

## What we take back

Unused items in their original packaging are always accepted within the window. Labels and hang tags should still be attached, and footwear must be returned in its shoe box (put the box inside a shipping carton, never tape a label on the box itself).

We cannot take back:

1. Gas cartridges and fuel bottles that have been opened or filled.
2. Hygiene items such as underwear, swimwear and mouthpieces of hydration bladders once the seal is broken.
3. Custom-cut items: rope, cord and webbing sold by the metre, and skins cut to a ski.
4. Gift cards and rental fees.

## The tried-outdoors promise

Gear only shows what it is worth outside. That is why we accept tents, sleeping bags, sleeping mats and backpacks **even after they have been used outdoors**, under these conditions:

- The item was used on no more than **three nights or days**, and the return is within the 30-day window.
- It is clean and completely dry. A tent that was packed wet must be dried before it is sent back; mould is not covered.
- Nothing is damaged beyond what normal use of the time leaves (a little dust in the seams is fine, a burn hole from a stove is not).
- All parts are included: pegs, guy lines, stuff sacks, repair kits.

Used items returned under the promise are refunded in full; we inspect them, clean them and sell them as "tried once" at a reduced price in our stores. Footwear is not part of the promise: boots and shoes can be tried indoors only, on carpet, so that the soles stay clean.

## How to return an online order

1. Open "My orders" in your account, choose the order and select **Return items**. Guest customers use the return form with their order number and e-mail address.
2. Choose the items and a reason. The reason helps us, it never changes the refund.
3. Print the prepaid return label (Germany and Austria) or note the return address (all other countries).
4. Hand the parcel to the carrier or drop it off in any of our stores.

Returns from Germany and Austria are free of charge. From Switzerland and other countries outside the EU, the customer pays the return postage and any customs charges; we refund the Swiss VAT on request with the stamped export document.

## Exchanges

If a size or colour does not fit, choose **Exchange** instead of Return. We reserve the replacement at once and send it as soon as the return is scanned by the carrier, so you do not wait for it to reach our warehouse. An exchange for a different product is handled as a return plus a new order.

## Refunds

- The refund goes back to the original payment method within **5 working days** after the return has been checked in our warehouse.
- PayPal and card refunds usually show within two days after that; bank transfers take up to five.
- Invoice purchases (pay later): the open invoice is reduced, nothing is paid out.
- Shipping costs of the original order are refunded when the whole order is returned.
- Store purchases are refunded in the store, to the original card or as cash up to 200 EUR.

## Returns in store

Online orders can be returned in every Trailhead store with the delivery note or the order number. The store checks the item, confirms the return at the till and the refund starts the same day. Store staff may accept a return outside the window as a goodwill gesture up to 90 days after purchase, as a store credit voucher only.

## Damaged or wrong items

If a parcel arrives damaged, or you received a different item than ordered, do not use the return form: contact customer service within 14 days with a photo. We send a replacement straight away and collect the wrong item at our cost. Hidden defects that appear later are warranty cases, see the warranty article.
`;

export const SHIPPING_EN = `# Shipping and delivery

Everything about how orders from the Trailhead Outfitters online shop reach our customers: costs, delivery times per country, special goods and what to do when a delivery goes wrong.

## Shipping costs

| Destination | Standard | Express |
| --- | --- | --- |
| Germany | 4.95 EUR, free from 79 EUR | 12.90 EUR |
| Austria | 6.95 EUR, free from 99 EUR | 19.90 EUR |
| Switzerland | 14.90 EUR | not offered |
| Other EU countries | 9.95 EUR | not offered |

Bulky goods (canoes, packrafts, large expedition tents over 10 kg) carry a fixed surcharge of 29 EUR wherever they go.

## Delivery times

- **Germany:** orders placed on a working day before 14:00 leave the warehouse the same day and usually arrive the next working day.
- **Austria:** two to three working days.
- **Switzerland:** three to five working days; the parcel is cleared through customs by the carrier and import VAT is charged to the recipient unless the order was placed as "delivered duty paid".
- **German North Sea and Baltic islands:** add two working days, parcels travel by ferry.
- **Express** orders placed before 12:00 arrive the next working day before noon (Germany) or the next working day (Austria).

Pre-order items ship when they arrive in our warehouse; the product page shows the expected date. An order with items of different availability ships in one parcel unless the customer chose split delivery at checkout.

## Carriers and tracking

Parcels travel with DHL in Germany and with the Austrian Post in Austria; bulky goods go by freight forwarder with a phone call to agree the delivery slot. As soon as the parcel leaves the warehouse, the customer gets an e-mail with the tracking link. The assistant can read the tracking status from the order when the customer gives the order number.

## Dangerous goods: gas and fuel

Gas cartridges, fuel bottles with fuel, fire starters and bear spray are dangerous goods. They ship **by road only, within Germany and Austria**, in a separate parcel marked as limited quantity, and take one to two days longer than the rest of the order. They cannot go to Packstations, parcel shops or islands, and express is not possible. Customers elsewhere can buy cartridges in any of our stores; empty fuel bottles ship everywhere.

## Packstations and parcel shops

Deliveries to a DHL Packstation or parcel shop are possible in Germany for parcels up to 31.5 kg and no longer than 120 cm. Give the Packstation number and the DHL customer number as the address. Bulky goods and dangerous goods cannot be delivered there.

## Click & collect

Orders can be collected free of charge in any Trailhead store. Stock from the store is ready within two hours during opening hours; items from the warehouse arrive in the store after two to three working days. We keep a collection order for ten days and send a reminder after seven.

## When a delivery goes wrong

1. **Tracking has not moved for three working days:** we open an investigation with the carrier and, if the parcel is not found within five more days, send a replacement or refund.
2. **Parcel marked as delivered but not received:** ask the customer to check with neighbours and the parcel shop first; after 48 hours we open a claim.
3. **Damaged parcel:** the customer should note the damage with the driver if possible and send a photo; we replace the goods, no return form is needed.
4. **Refused or returned to sender:** the order is refunded minus the original shipping cost once the parcel is back in the warehouse.

## Changing or cancelling an order

An order can be changed or cancelled in the account until it is handed to the warehouse, normally within 30 minutes of ordering. After that, the customer can refuse the parcel or use the free return.
`;

export const TENTS_EN = `# Choosing a tent

A buying guide for customers who are not sure which tent they need. The assistant uses it to ask the right questions before recommending a product.

## How many people?

Tent capacities are measured tightly: a two-person tent fits two sleeping mats of 51 cm side by side and little else. As a rule of thumb:

- Solo hikers who count every gram take a one-person tent; everyone else is happier with a two-person tent for one.
- Couples who carry the tent on their backs take a two-person tent; for car camping or longer trips a three-person tent gives room for bags inside.
- Families of four take a tunnel or dome tent for five or six, with a vestibule big enough to cook in when it rains.

## Seasons

| Rating | Made for | Typical features |
| --- | --- | --- |
| 3-season | spring to autumn, wind up to about 60 km/h | mesh inner tent, 3-4 poles |
| 3-4-season | exposed sites, early snow | solid inner panels, more guy points |
| 4-season | winter and high altitude, snow load | stronger poles, snow flaps, a fly that reaches the ground |

A 4-season tent is heavier and warmer, and it condenses more in summer; do not sell it for a July trip to Sweden.

## Weight and packed size

Trail weight is the weight of the fly, inner and poles; packed weight adds pegs, guy lines and bags. Ultralight tents under 1.2 kg for two use thinner fabrics (10-20 denier) and one pole or trekking poles; they need care when pitching on rocky ground. For cycling, the packed length matters more than the weight: poles shorter than 45 cm fit a pannier.

## Waterproofing: hydrostatic head

The hydrostatic head says how high a column of water the fabric holds before it leaks. A fly of **1,500 mm** is waterproof in ordinary rain; **3,000 mm** and more is reserved for long storms and for the floor, which is pressed into wet ground by knees and elbows. More than 5,000 mm on a fly adds weight without adding protection, and silicone-coated nylon (silnylon) is waterproof far beyond its rating, because the coating does not age as quickly as polyurethane.

## Tunnel, dome or semi-geodesic?

- **Tunnel tents** give the most room for their weight and pitch quickly, but must be pitched with the tail into the wind and need every peg.
- **Dome tents** stand on their own: good on rock, sand and platforms, and easy to move before pegging.
- **Semi-geodesic tents** cross their poles more than once and stand up to strong wind and snow; they are the choice for mountains and the far north.

## Inner first or fly first?

Tents that pitch fly first (or both together) keep the inner dry when it rains while pitching. In Scandinavia and Scotland this is the question to ask first.

## Ventilation and condensation

Every tent condenses on a cold, still night, because two people breathe out about half a litre of water. Vents high up on the fly, a gap at the ground and an inner tent with mesh panels keep it down. Condensation is not a leak; explain this before a customer returns a tent as "not waterproof".

## Care

1. Dry the tent completely before storing it, even after one night of dew.
2. Store it loosely in a large bag, not in the stuff sack.
3. Clean it with water and a sponge, never in the washing machine.
4. Re-proof the fly every few seasons with a silicone or PU spray, depending on the coating.
5. Pole sections that do not slide together easily are cleaned and given a drop of silicone oil.
`;

export const SLEEPING_BAGS_EN = `# Sleeping bag temperature ratings and fill

Why two customers in the same bag sleep differently, how the ratings on the label are measured, and which fill suits which trip.

## The three ratings on the label

Sleeping bags sold in Europe are tested to EN 13537 or its successor ISO 23537. The label shows three temperatures:

- **Comfort:** a standard woman sleeps comfortably in a relaxed position. This is the number to plan with.
- **Limit (lower limit):** a standard man sleeps curled up for eight hours without waking from cold.
- **Extreme:** survival for six hours with a risk of hypothermia. Never plan with it; newer ISO labels leave it out.

People who sleep cold, and everyone who is tired, hungry or wet, should choose a bag whose comfort rating is 5 °C below the coldest night they expect.

## The mat matters as much as the bag

The ratings are measured on a mat with an **R-value of 4.8** under ISO 23537-1:2022 (older tests used a thinner mat). A bag on a thin foam mat with R 1.5 feels 5 to 8 degrees colder, because the filling under the body is compressed and the ground takes the heat. For nights below freezing, sell the mat with the bag: R 4 or more.

## Down or synthetic?

| | Down | Synthetic |
| --- | --- | --- |
| Warmth for its weight | best | lower |
| Packed size | small | larger |
| When wet | loses loft | keeps most of it |
| Lifetime | 10-20 years with care | 5-8 years |
| Price | higher | lower |

Down is measured by **fill power** (cubic inches per ounce): 600 is good, 750 very good, 850 and more is expedition grade. All our down is RDS certified, from birds that were not live-plucked or force-fed. Synthetic fill suits wet climates, canoe trips, and children who grow out of a bag in three years.

## Shape and size

Mummy bags are warmest for their weight. Rectangular and "comfort" shapes give room to move the knees and suit side sleepers, at the price of warmth. A bag that is too long leaves cold space at the feet; one that is too short compresses the fill at head and toes. Choose the length that is at least 15 cm more than the sleeper's height.

## Zips, hoods and draft collars

A full-length zip lets the bag open as a quilt on warm nights and join another bag with a zip on the other side (left and right zips). A draft collar around the shoulders and a hood that closes around the face are worth more below freezing than 100 g of extra fill.

## Washing and storage

1. Store the bag loosely in the large cotton storage sack, never compressed in its stuff sack.
2. Air it after every trip and use a liner to keep it clean; a liner also adds 2 to 5 degrees.
3. Wash down bags rarely, with down wash, at 30 °C in a front loader, and tumble dry on low with three tennis balls until every clump is gone; this takes three to four hours.
4. Synthetic bags can be washed the same way, and dry in half the time.
`;

export const BOOTS_EN = `# Fitting and caring for hiking boots

Most returns of hiking boots are fitting problems that a good fitting in the shop or a few questions in the chat would have avoided. This guide is for staff and the assistant.

## When to fit

Feet swell over the day and on long walks by up to half a size. Fit boots in the afternoon, with the socks that will be worn on the trail, and after the customer has been on their feet for a while.

## The fitting, step by step

1. Measure both feet standing, length and width; the longer foot decides.
2. With the boot unlaced, push the foot forward until the toes touch the front: a finger's width (about 1.5 cm) should fit behind the heel.
3. Lace the boot firmly at the instep and walk: the heel may lift a few millimetres, not more.
4. Walk down the test ramp: the toes must not touch the front. If they do, try half a size up or a different last, not tighter laces.
5. Stand on tiptoe and kneel: the flex point of the boot should match the ball of the foot.

## Categories

- **A (light hiking):** flexible, for paths and short day hikes.
- **B (trekking):** stiffer sole, ankle support, for multi-day hikes with a backpack.
- **C (mountaineering):** stiff enough for semi-automatic crampons, for glaciers and scree.
- **D (expedition):** fully stiff, for automatic crampons and high altitude.

## Width and volume

Brands build on different lasts. Nordkamm and Fjellstad run narrow at the heel, Ridgeway is wide in the forefoot, Alpenflug offers most models in a wide version. A customer with a high instep should try a boot that can be laced loosely over the instep with a surgeon's knot at the top hooks.

## Breaking in

Leather boots need 20 to 30 km of easy walking before a long trip, synthetic boots much less. Blisters in the first days come from a heel that lifts; relace with a heel lock before buying a smaller size.

## Care

- Brush off mud after every hike and let the boots dry slowly at room temperature, never on a radiator or by a fire: the leather cracks and the glue fails.
- Stuff wet boots with newspaper and change it after an hour.
- Clean membrane boots with water and a brush; use wax for full-grain leather and a spray for suede and fabric.
- Take the insoles out to dry them separately.

## Resoling

Good trekking and mountain boots with a stitched or cemented sole can be resoled. Our repair partner resoles Nordkamm, Alpenflug and Ridgeway boots for 79 EUR within three weeks; the boots must still have an intact rand and upper. The assistant can start a repair order like a warranty claim.
`;

export const WARRANTY_EN = `# Warranty, guarantees and the repair service

What customers can expect when gear fails, and how the service team decides between warranty, goodwill and paid repair.

## Statutory warranty

Every product sold in the EU carries a two-year statutory warranty for defects that were present at delivery. In the first year the law presumes that a defect was there from the start. The customer chooses between repair and replacement; if neither works, the money is refunded.

## Manufacturer guarantees

Some brands give more than the law:

| Brand | Guarantee | Notes |
| --- | --- | --- |
| Nordkamm | lifetime on material and workmanship | not wear and tear |
| Fjellstad | 5 years on tents and backpacks | registration within 30 days |
| Ridgeway | 3 years on footwear | soles count as wear |
| Alpenflug | 10 years on down products | baffle seams and zips included |

The guarantee is a promise of the brand on top of the warranty; we handle both the same way, so the customer never has to contact the manufacturer.

## Wear and tear is not a defect

Worn soles, abraded fabric at the hip belt, a faded colour and a membrane that stopped breathing after years of use are wear. Damage from fire, sharp rocks and wrong care (washing a down jacket with ordinary detergent, drying boots on a stove) is not covered. Where it is unclear, the repair workshop decides after inspection.

## The repair service

We repair much of what we sell, also outside the warranty:

- **Zips:** new sliders from 15 EUR, a new zip from 35 EUR.
- **Tents:** new pole sections and pole repair sleeves for every model we sell; fabric patches; seam sealing.
- **Down:** refilling and new baffles by our partner workshop.
- **Footwear:** resoling from 79 EUR (see the boot guide).

Quotes are sent before any paid repair starts; nothing is done without the customer's agreement. Repairs take two to four weeks.

## Starting a claim

1. The customer sends photos of the defect and the order number (or the receipt for store purchases) through the claim form or in the chat.
2. The service team decides within two working days: warranty, goodwill or paid repair with a quote.
3. The customer gets a prepaid label (Germany and Austria) and sends the item cleaned and dry.
4. The workshop repairs it, or we replace it when a repair is not possible; the customer is told which.

## Goodwill

Outside the warranty, staff may offer goodwill up to 50 EUR or a 20 % voucher on a replacement for Trailhead Club members, once per item. Anything beyond needs a team lead.
`;
