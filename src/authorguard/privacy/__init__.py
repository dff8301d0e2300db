"""Privacy mechanisms, their exact loss, and the accounting reported with every release."""
