"""Names the patients get: pools by background, their rough shares, and nicknames.

Weighted by rough shares of US adults, so a set of sixty doesn't come out oddly uniform.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NamePool:
    women: tuple[str, ...]
    men: tuple[str, ...]
    neutral: tuple[str, ...]
    surnames: tuple[str, ...]
    older_women: tuple[str, ...] = ()  # names common among people born before about 1965
    older_men: tuple[str, ...] = ()


# fmt: off
NAME_POOLS: dict[str, NamePool] = {
    "anglo": NamePool(
        women=("Emily", "Hannah", "Megan", "Lauren", "Jessica", "Ashley", "Rachel", "Katie", "Sarah", "Amanda", "Brittany", "Molly"),
        men=("Tyler", "Ryan", "Jake", "Kyle", "Matthew", "Brandon", "Justin", "Cody", "Andrew", "Zachary", "Travis", "Ethan"),
        neutral=("Taylor", "Jordan", "Casey", "Riley", "Morgan", "Avery", "Quinn"),
        surnames=("Miller", "Anderson", "Thompson", "Baker", "Murphy", "Sullivan", "Walsh", "Parker", "Collins", "Hughes",
                  "Schmidt", "Olson", "Larson", "Becker"),
        older_women=("Margaret", "Dorothy", "Barbara", "Patricia", "Linda", "Carol", "Judith", "Shirley", "Nancy", "Joan",
                     "Elizabeth", "Sandra"),
        older_men=("Robert", "William", "Richard", "Donald", "Gary", "Ronald", "Kenneth", "Harold", "Thomas", "Gerald",
                   "Dennis", "Larry"),
    ),
    "black": NamePool(
        women=("Aaliyah", "Imani", "Jasmine", "Keisha", "Tiana", "Brianna", "Ebony", "Nia", "Shanice", "Kiara"),
        men=("Darnell", "Jamal", "DeShawn", "Malik", "Terrell", "Andre", "Marcus", "Isaiah", "Jalen", "Tyrone"),
        neutral=("Jordan", "Kendall", "Sky", "Jaden"),
        surnames=("Washington", "Jackson", "Robinson", "Harris", "Coleman", "Booker", "Freeman", "Jefferson", "Mosley",
                  "Banks", "Wright", "Carter"),
        older_women=("Gloria", "Bernice", "Loretta", "Gwendolyn", "Dorothy", "Mae", "Beverly", "Yvonne", "Geraldine", "Wanda"),
        older_men=("Willie", "Clarence", "Otis", "Leroy", "Curtis", "Earl", "Roosevelt", "Calvin", "Henry", "Vernon"),
    ),
    "hispanic": NamePool(
        women=("María", "Guadalupe", "Ana", "Rosa", "Carmen", "Daniela", "Valeria", "Sofía", "Lucía", "Yesenia", "Marisol",
               "Alejandra"),
        men=("José", "Luis", "Carlos", "Juan", "Miguel", "Jorge", "Alejandro", "Diego", "Javier", "Ricardo", "Eduardo", "Héctor"),
        neutral=("Alex", "Cruz", "Ariel", "Dani"),
        surnames=("García", "Martínez", "Rodríguez", "Hernández", "López", "González", "Pérez", "Sánchez", "Ramírez",
                  "Flores", "Rivera", "Torres", "Ortiz", "Castillo"),
    ),
    "chinese": NamePool(
        women=("Mei", "Xiu", "Li Na", "Grace", "Jenny", "Wen"),
        men=("Wei", "Jun", "Hao", "Kevin", "Eric", "Ming"),
        neutral=("Min", "Jamie", "Yu"),
        surnames=("Chen", "Wang", "Li", "Zhang", "Huang", "Liu", "Wu", "Lin"),
    ),
    "vietnamese": NamePool(
        women=("Linh", "Thao", "Lan", "Hoa", "Michelle", "Trang"),
        men=("Minh", "Tuan", "Duc", "Long", "Daniel", "Khoa"),
        neutral=("An", "Kim"),
        surnames=("Nguyen", "Tran", "Pham", "Le", "Vo", "Hoang"),
    ),
    "korean": NamePool(
        women=("Ji-woo", "Min-ji", "Soo-jin", "Grace", "Hana", "Eun-ji"),
        men=("Sung-min", "Joon", "Dong-hyun", "Daniel", "Jae", "Hyun-woo"),
        neutral=("Jin", "Sam"),
        surnames=("Kim", "Park", "Lee", "Choi", "Jung", "Kang"),
    ),
    "japanese": NamePool(
        women=("Yuki", "Emi", "Naomi", "Keiko", "Aiko"),
        men=("Hiroshi", "Kenji", "Takeshi", "Ken", "Daisuke"),
        neutral=("Kai", "Hikaru"),
        surnames=("Tanaka", "Yamamoto", "Sato", "Suzuki", "Nakamura", "Watanabe"),
    ),
    "south_asian": NamePool(
        women=("Priya", "Anjali", "Divya", "Sunita", "Kavya", "Meera", "Fatima", "Nisha", "Pooja", "Lakshmi"),
        men=("Raj", "Arjun", "Vikram", "Sanjay", "Rahul", "Imran", "Suresh", "Amit", "Harpreet", "Karthik"),
        neutral=("Kiran", "Ari", "Sasha"),
        surnames=("Patel", "Shah", "Singh", "Kumar", "Reddy", "Iyer", "Khan", "Chowdhury", "Gupta", "Desai", "Rao",
                  "Malhotra"),
    ),
    "middle_eastern": NamePool(
        women=("Layla", "Noor", "Yasmin", "Mariam", "Rania", "Leila", "Amira", "Dalia"),
        men=("Omar", "Ahmed", "Karim", "Tariq", "Sami", "Yusuf", "Bilal", "Nabil"),
        neutral=("Noor", "Rami", "Sami"),
        surnames=("Haddad", "Khoury", "Saleh", "Nasser", "Farah", "Hassan", "Aziz", "Mansour", "Rahimi", "Sadeghi"),
    ),
    "eastern_european": NamePool(
        women=("Katarzyna", "Olena", "Anna", "Natalia", "Irina", "Magdalena", "Svetlana", "Marta"),
        men=("Piotr", "Dmitri", "Andrei", "Tomasz", "Viktor", "Oleksandr", "Pavel", "Stefan"),
        neutral=("Sasha", "Alex"),
        surnames=("Kowalski", "Novak", "Petrov", "Wiśniewski", "Horvat", "Kovalenko", "Ivanov", "Dvořák", "Popescu",
                  "Nowak"),
    ),
    "west_african": NamePool(
        women=("Adaeze", "Chiamaka", "Abena", "Ngozi", "Folake", "Amara", "Efua", "Ifeoma"),
        men=("Chinedu", "Kwame", "Oluwaseun", "Emeka", "Kofi", "Tunde", "Yaw", "Obinna"),
        neutral=("Ayo", "Sena", "Kemi"),
        surnames=("Okafor", "Mensah", "Adeyemi", "Okonkwo", "Boateng", "Eze", "Owusu", "Balogun", "Nwosu", "Asante"),
    ),
}
# fmt: on
# Rough shares of US adults, so a set of sixty doesn't come out oddly uniform.
NAME_POOL_WEIGHTS = {
    "anglo": 45,
    "black": 13,
    "hispanic": 19,
    "chinese": 1.5,
    "vietnamese": 1.2,
    "korean": 1,
    "japanese": 0.6,
    "south_asian": 3,
    "middle_eastern": 2,
    "eastern_european": 5,
    "west_african": 2,
}  # fmt: skip

NICKNAMES = {
    "Robert": ("Bob", "Rob", "Bobby"),
    "William": ("Bill", "Will"),
    "Richard": ("Rick", "Dick"),
    "Donald": ("Don",),
    "Ronald": ("Ron",),
    "Kenneth": ("Ken", "Kenny"),
    "Harold": ("Hal",),
    "Thomas": ("Tom", "Tommy"),
    "Gerald": ("Jerry",),
    "Lawrence": ("Larry",),
    "Margaret": ("Peggy", "Maggie"),
    "Dorothy": ("Dot", "Dottie"),
    "Barbara": ("Barb",),
    "Patricia": ("Pat", "Patty"),
    "Elizabeth": ("Liz", "Beth"),
    "Judith": ("Judy",),
    "Sandra": ("Sandy",),
    "Jessica": ("Jess",),
    "Matthew": ("Matt",),
    "Andrew": ("Andy", "Drew"),
    "Zachary": ("Zach",),
    "Katarzyna": ("Kasia",),
    "Guadalupe": ("Lupe",),
    "Alejandro": ("Alex",),
    "Oluwaseun": ("Seun",),
    "Alejandra": ("Ale",),
    "Eduardo": ("Lalo",),
    "Gwendolyn": ("Gwen",),
    "Geraldine": ("Gerri",),
    "Clarence": ("Clancy",),
    "Dmitri": ("Dima",),
    "Oleksandr": ("Sasha",),
    "Christopher": ("Chris",),
    "Rachel": ("Rach",),
    "Samantha": ("Sam",),
    "Daniel": ("Dan", "Danny"),
    "Ji-woo": ("Jiwoo",),
    "Vikram": ("Vik",),
    "Michelle": ("Shelly",),
    "Brittany": ("Britt",),
}
